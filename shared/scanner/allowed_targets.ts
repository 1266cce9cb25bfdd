import { canonicalAddress } from "./address_policy.ts";

/**
 * One `SCAN_ALLOWED_TARGETS` entry: an exact IP address, and the one port it
 * opens when the entry names a port.
 */
export interface AllowedTarget {
  /** Canonical address text (`127.0.0.1`, `::1`). */
  address: string;
  /** The only port this entry allows; undefined: the fetcher's allowed ports. */
  port?: number;
}

/**
 * Parses allow-list entries: `IP` or `IP:port`, IPv6 as `::1`, `[::1]` or
 * `[::1]:8080`. IPv4 must be dotted decimal (`127.0.0.1`, not `127.1` or
 * `0x7f000001`). Unspecified addresses (`0.0.0.0`, `::`) are refused: they
 * mean "any local address", never one target.
 *
 * @throws {TypeError} naming the first malformed entry by its position,
 *   never by its value (configuration errors never echo values).
 */
export function parseAllowedTargets(list: readonly string[]): AllowedTarget[] {
  return list.map((raw, index) => {
    const entry = raw.trim();
    const name = `Allowed target ${index + 1}`;
    const bracketed = /^\[([^\]]*:[^\]]*)\](?::(\d{1,5}))?$/.exec(entry);
    const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(entry);
    const [text, portText] = bracketed
      ? [bracketed[1], bracketed[2]]
      : v4
      ? [v4[1], v4[2]]
      : entry.includes(":")
      ? [entry, undefined]
      : [undefined, undefined];
    const address = text === undefined ? undefined : canonicalAddress(text);
    if (address === undefined || (v4 !== null && address.includes(":"))) {
      throw new TypeError(`${name} is not an IP address or IP:port`);
    }
    if (address === "0.0.0.0" || address === "::") {
      throw new TypeError(`${name} is an unspecified address`);
    }
    if (portText === undefined) return { address };
    const port = Number(portText);
    if (port < 1 || port > 65535) {
      throw new TypeError(`${name} has a port outside 1-65535`);
    }
    return { address, port };
  });
}

/**
 * Whether the allow-list lets the scanner connect to `address` (canonical)
 * on `port`: an entry with a port allows exactly that port; an entry without
 * one allows the fetcher's `allowedPorts`.
 */
export function isAllowListed(
  targets: readonly AllowedTarget[],
  address: string,
  port: number,
  allowedPorts: readonly number[],
): boolean {
  return targets.some((target) =>
    target.address === address &&
    (target.port === undefined ? allowedPorts.includes(port) : target.port === port)
  );
}
