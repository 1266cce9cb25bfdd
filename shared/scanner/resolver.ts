/**
 * Resolves a host name to every IPv4 and IPv6 address it has. An empty list
 * means the name has no address (NXDOMAIN or no A/AAAA records); a thrown
 * error means resolution itself failed (server failure, timeout). Tests
 * inject their own to map made-up names to any address without DNS.
 */
export type Resolver = (hostname: string, options: { signal: AbortSignal }) => Promise<string[]>;

/**
 * The system resolver: `Deno.resolveDns` for A and AAAA at once. A record
 * type that does not exist counts as no addresses; when neither type yields
 * an address and one of them failed otherwise, that failure is thrown.
 */
export async function systemResolver(
  hostname: string,
  options: { signal: AbortSignal },
): Promise<string[]> {
  const answers = await Promise.allSettled([
    Deno.resolveDns(hostname, "A", { signal: options.signal }),
    Deno.resolveDns(hostname, "AAAA", { signal: options.signal }),
  ]);
  const addresses: string[] = [];
  let failure: unknown;
  for (const answer of answers) {
    if (answer.status === "fulfilled") addresses.push(...answer.value);
    else if (!(answer.reason instanceof Deno.errors.NotFound)) failure ??= answer.reason;
  }
  if (addresses.length === 0 && failure !== undefined) throw failure;
  return addresses;
}
