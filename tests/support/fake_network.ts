/**
 * A made-up network for scanner tests: a resolver that maps invented host
 * names (`site.test`, `internal.test`, ...) to any address without DNS, and
 * a connector that records every address the scanner asks for and connects
 * only to loopback fixture servers. Nothing here ever opens a connection to
 * anything but 127.0.0.1 or ::1.
 */
import type { Connector } from "../../shared/scanner/pinned_connection.ts";
import type { Resolver } from "../../shared/scanner/resolver.ts";

/** One name's answers: fixed, per lookup (rebinding), or a resolution failure. */
export type FakeAnswer = string[] | ((lookup: number) => string[]) | "fail";

/** A resolver that also tells what it was asked. */
export type FakeResolver = Resolver & { lookups: string[] };

/** A connector that also tells what it was asked. */
export type RecordingConnector = Connector & { calls: { address: string; port: number }[] };

/** Public addresses tests hand out for made-up names. They are never connected to. */
export const PUBLIC_V4 = "93.184.215.14";
export const PUBLIC_V4_OTHER = "93.184.215.15";
export const PUBLIC_V6 = "2606:4700::1";

/**
 * Resolves names from `table`; a name that is not in it has no address
 * (as NXDOMAIN). A function answer is called with the 1-based count of
 * lookups of that name, so it can answer differently each time.
 */
export function fakeResolver(table: Record<string, FakeAnswer>): FakeResolver {
  const lookups: string[] = [];
  const resolve: Resolver = (hostname) => {
    lookups.push(hostname);
    const answer = table[hostname];
    if (answer === "fail") return Promise.reject(new Error("SERVFAIL"));
    if (typeof answer === "function") {
      return Promise.resolve(answer(lookups.filter((name) => name === hostname).length));
    }
    return Promise.resolve(answer ?? []);
  };
  return Object.assign(resolve, { lookups });
}

/** Options of {@linkcode routingConnector}. */
export interface RoutingOptions {
  /**
   * Let requests for a loopback address through to that same address and
   * port (the allow-list tests, which scan a loopback site directly).
   */
  passLoopback?: boolean;
}

/**
 * Records every `{ address, port }` the scanner asks for. An address in
 * `routes` is served by the loopback fixture on the given port; a loopback
 * address goes through when `passLoopback` is set; anything else is refused
 * without opening a connection.
 */
export function routingConnector(
  routes: Record<string, { port: number; hostname?: "127.0.0.1" | "::1" }>,
  options: RoutingOptions = {},
): RecordingConnector {
  const calls: { address: string; port: number }[] = [];
  const connect: Connector = (target, { signal }) => {
    calls.push({ ...target });
    const route = routes[target.address];
    if (route !== undefined) {
      return Deno.connect({ hostname: route.hostname ?? "127.0.0.1", port: route.port, signal });
    }
    if (options.passLoopback && isLoopback(target.address)) {
      return Deno.connect({ hostname: target.address, port: target.port, signal });
    }
    return Promise.reject(new Deno.errors.ConnectionRefused("not a fixture address"));
  };
  return Object.assign(connect, { calls });
}

function isLoopback(address: string): boolean {
  return address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address);
}
