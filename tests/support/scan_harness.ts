/**
 * A safe fetcher wired to a fixture site through the made-up network:
 * `site.test` resolves to a public address that is never connected to; the
 * recording connector serves that address from the loopback fixture.
 *
 * @example
 * ```ts
 * await using h = await startScanHarness({ site: { robots: "disallow-private" } });
 * using scan = h.fetcher.startScan();
 * await scan.fetchPage("http://site.test/page.html");
 * assert.deepEqual(h.connect.calls, [{ address: PUBLIC_V4, port: 80 }, ...]);
 * ```
 */
import assert from "node:assert/strict";
import type { FetchLimits } from "../../shared/scanner/fetch_limits.ts";
import {
  createSafeFetcher,
  type SafeFetcher,
  type SafeFetcherOptions,
} from "../../shared/scanner/safe_fetcher.ts";
import { ScanError } from "../../shared/scanner/scan_error.ts";
import type { ScanSession } from "../../shared/scanner/scan_session.ts";
import {
  type FakeAnswer,
  type FakeResolver,
  fakeResolver,
  PUBLIC_V4,
  type RecordingConnector,
  routingConnector,
  type RoutingOptions,
} from "./fake_network.ts";
import { type FixtureSite, type FixtureSiteOptions, startFixtureSite } from "./fixture_site.ts";
import type { RawServer } from "./raw_http_server.ts";

/** Options of {@linkcode startScanHarness}. */
export interface ScanHarnessOptions {
  site?: FixtureSiteOptions;
  /** Extra or replacing names; `site.test` maps to PUBLIC_V4 unless given. */
  names?: Record<string, FakeAnswer>;
  /** Extra public addresses the connector serves from the fixture. */
  routedAddresses?: string[];
  routing?: RoutingOptions;
  fetcher?: Omit<SafeFetcherOptions, "resolve" | "connect">;
}

/** A fixture site, a recording network and a fetcher over them. */
export interface ScanHarness extends AsyncDisposable {
  site: FixtureSite;
  resolve: FakeResolver;
  connect: RecordingConnector;
  fetcher: SafeFetcher;
}

/** Starts a fixture site and builds a fetcher that reaches it only through the fake network. */
export async function startScanHarness(options: ScanHarnessOptions = {}): Promise<ScanHarness> {
  const site = await startFixtureSite(options.site);
  const resolve = fakeResolver({ "site.test": [PUBLIC_V4], ...options.names });
  const routes = Object.fromEntries(
    [PUBLIC_V4, ...(options.routedAddresses ?? [])].map((address) => [
      address,
      { port: site.port, hostname: site.hostname as "127.0.0.1" | "::1" },
    ]),
  );
  const connect = routingConnector(routes, options.routing);
  const fetcher = createSafeFetcher({ ...options.fetcher, resolve, connect });
  return { site, resolve, connect, fetcher, [Symbol.asyncDispose]: () => site.close() };
}

/** A scan whose `site.test` (PUBLIC_V4) is served by a raw server on loopback. */
export function scanRawSite(server: RawServer, limits: Partial<FetchLimits> = {}): ScanSession {
  return createSafeFetcher({
    resolve: fakeResolver({ "site.test": [PUBLIC_V4] }),
    connect: routingConnector({ [PUBLIC_V4]: { port: server.port } }),
    limits,
  }).startScan();
}

/** The ScanError `attempt` rejects with; fails the test if it resolves or rejects with anything else. */
export async function scanFailure(
  attempt: Promise<unknown>,
  label = "a failure",
): Promise<ScanError> {
  const error = await attempt.then(() => assert.fail(`expected ${label}`), (error) => error);
  assert.ok(error instanceof ScanError, String(error));
  return error;
}
