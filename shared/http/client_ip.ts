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
