import ipaddr from "ipaddr.js";

/** The part of Deno's ServeHandlerInfo the service reads. */
export interface ConnInfo {
  remoteAddr: { hostname: string } | { transport: string };
}

/**
 * The client IP as observed at runtime. With `trustedProxyHops` 0 it is the
 * socket address; with N it is the Nth address from the right of
 * `X-Forwarded-For`, the one the outermost trusted proxy saw. Anything left of
 * it is client-supplied and never trusted.
 */
export function clientIp(
  req: Request,
  info: ConnInfo | undefined,
  trustedProxyHops: number,
): string {
  const socket = info && "hostname" in info.remoteAddr ? info.remoteAddr.hostname : "unknown";
  if (trustedProxyHops <= 0) return socket;
  const chain = (req.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return chain[chain.length - trustedProxyHops] ?? chain[0] ?? socket;
}

/**
 * The key a per-IP limit counts a client under: an IPv4 address as it is
 * (an IPv4-mapped IPv6 address unwrapped to it), an IPv6 address by its /64
 * network, since one host is usually given a whole /64 and could otherwise
 * take a fresh address for every request. Anything that is not an IP
 * address (no socket address, a malformed forwarded value) counts as itself.
 */
export function ipLimitKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
