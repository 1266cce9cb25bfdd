import ipaddr from "ipaddr.js";

/** Why an address is refused; each names a class of addresses, never an address. */
export type AddressRefusal =
  | "invalid_address"
  | "unspecified_address"
  | "loopback_address"
  | "private_address"
  | "link_local_address"
  | "shared_address"
  | "multicast_address"
  | "reserved_address"
  | "embedded_ipv4_address";

/** The verdict on one IP address. */
export type AddressVerdict =
  | {
    allowed: true;
    /** The address to connect to: canonical text; an IPv4-mapped IPv6 address is unwrapped to its IPv4. */
    address: string;
  }
  | { allowed: false; reason: AddressRefusal };

/** Phrases for messages: "The target resolves to <phrase>". */
export const ADDRESS_REFUSAL_PHRASES: Record<AddressRefusal, string> = {
  invalid_address: "an invalid address",
  unspecified_address: "an unspecified address",
  loopback_address: "a loopback address",
  private_address: "a private address",
  link_local_address: "a link-local address",
  shared_address: "a shared (carrier-grade NAT) address",
  multicast_address: "a multicast or broadcast address",
  reserved_address: "a reserved or special-purpose address",
  embedded_ipv4_address: "an IPv6 address that embeds an IPv4 address",
};

const V4_REFUSALS: Record<string, AddressRefusal> = {
  unspecified: "unspecified_address",
  loopback: "loopback_address",
  private: "private_address",
  linkLocal: "link_local_address",
  carrierGradeNat: "shared_address",
  multicast: "multicast_address",
  broadcast: "multicast_address",
};

const V6_REFUSALS: Record<string, AddressRefusal> = {
  unspecified: "unspecified_address",
  loopback: "loopback_address",
  uniqueLocal: "private_address",
  linkLocal: "link_local_address",
  multicast: "multicast_address",
  "6to4": "embedded_ipv4_address",
  teredo: "embedded_ipv4_address",
  rfc6052: "embedded_ipv4_address",
  rfc6145: "embedded_ipv4_address",
};

/**
 * IANA's global unicast allocation. ipaddr.js calls everything it has no
 * name for `unicast`, including the deprecated IPv4-compatible `::/96`
 * (`[::127.0.0.1]` parses to `::7f00:1`), site-local `fec0::/10` and the
 * local-use NAT64 prefix `64:ff9b:1::/48`; none of those is outside 2000::/3.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * Special-purpose IPv6 ranges inside 2000::/3 that ipaddr.js 2.3.0 does not
 * name yet: the documentation prefix of RFC 9637.
 */
const UNNAMED_SPECIAL_V6 = [ipaddr.parseCIDR("3fff::/20")];

/**
 * Classifies an IP address (dotted-quad IPv4 or any IPv6 text form). Only
 * ipaddr.js's `unicast` IPv4 class passes, and IPv6 `unicast` inside
 * 2000::/3; an IPv4-mapped IPv6 address is judged by its IPv4. Everything
 * else (loopback, private, link-local, CGNAT, multicast, broadcast,
 * unspecified, unique-local, documentation, benchmarking, reserved,
 * 6to4, Teredo, NAT64, IPv4-compatible) is refused.
 */
export function classifyAddress(text: string): AddressVerdict {
  const parsed = parseAddress(text);
  if (parsed === undefined) return { allowed: false, reason: "invalid_address" };
  if (parsed.kind() === "ipv4") return classifyV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classifyV4(v6.toIPv4Address());
  const range = v6.range();
  if (range !== "unicast") {
    return { allowed: false, reason: V6_REFUSALS[range] ?? "reserved_address" };
  }
  if (v6.parts.slice(0, 6).every((part) => part === 0)) {
    return { allowed: false, reason: "embedded_ipv4_address" };
  }
  if (!v6.match(GLOBAL_UNICAST_V6) || UNNAMED_SPECIAL_V6.some((cidr) => v6.match(cidr))) {
    return { allowed: false, reason: "reserved_address" };
  }
  return { allowed: true, address: v6.toString() };
}

/** The canonical text of an IP address (dotted-quad IPv4 or IPv6 without brackets), or undefined when `text` is not one. */
export function canonicalAddress(text: string): string | undefined {
  return parseAddress(text)?.toString();
}

function classifyV4(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  if (range === "unicast") return { allowed: true, address: address.toString() };
  return { allowed: false, reason: V4_REFUSALS[range] ?? "reserved_address" };
}

/**
 * Parses strict dotted-quad IPv4 or IPv6. IPv6 text goes through the WHATWG
 * URL parser first: ipaddr.js reads the dotted IPv4-compatible form
 * `::a.b.c.d` as IPv4-mapped `::ffff:a.b.c.d`, WHATWG reads it correctly,
 * and it also refuses zone identifiers.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(":") || !URL.canParse(`http://[${text}]/`)) return undefined;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.isValid(canonical) ? ipaddr.IPv6.parse(canonical) : undefined;
}
