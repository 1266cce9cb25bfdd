/** Time and size limits: connect, request and scan timeouts; header and body caps. */
import assert from "node:assert/strict";
import { Deadline } from "../../shared/scanner/deadline.ts";
import type { Connector } from "../../shared/scanner/pinned_connection.ts";
import { createSafeFetcher } from "../../shared/scanner/safe_fetcher.ts";
import { ScanError } from "../../shared/scanner/scan_error.ts";
import { fakeResolver, PUBLIC_V4 } from "../support/fake_network.ts";
import { FIXTURE_PATHS, LARGE_PAGE_BYTES } from "../support/fixture_site.ts";
import { pause, startRawSite, writeText } from "../support/raw_http_server.ts";
import { scanFailure, scanRawSite, startScanHarness } from "../support/scan_harness.ts";

const SITE = "http://site.test";
const MIB = 1024 * 1024;

Deno.test("limits: headers that never come time out with 502", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 3000 },
    fetcher: { limits: { requestTimeoutMs: 200 } },
  });
  using scan = h.fetcher.startScan();
  const started = performance.now();
  const error = await scanFailure(scan.fetchPage(`${SITE}${FIXTURE_PATHS.slowHeaders}`));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "timeout");
  assert.ok(performance.now() - started < 1500);
});

Deno.test("limits: a body dribbled past the request timeout fails with 502", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 2000 },
    fetcher: { limits: { requestTimeoutMs: 300 } },
  });
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scan.fetchPage(`${SITE}${FIXTURE_PATHS.slowBody}`));
  assert.equal(error.reason, "timeout");
});

Deno.test("limits: headers dribbled a byte at a time hit the total request timeout, not an idle one", async () => {
  await using server = startRawSite(async (conn, signal) => {
    for (
      const char of "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-padding: " + "a".repeat(100)
    ) {
      await writeText(conn, char);
      await pause(20, signal);
      if (signal.aborted) return;
    }
  });
  using scan = scanRawSite(server, { requestTimeoutMs: 400 });
  const started = performance.now();
  const error = await scanFailure(scan.fetchPage(`${SITE}/`));
  assert.equal(error.reason, "timeout");
  assert.ok(performance.now() - started < 1500);
});

Deno.test("limits: a response head over 32 KiB is refused with 502", async () => {
  await using server = startRawSite(async (conn) => {
    await writeText(
      conn,
      `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-big: ${"a".repeat(40 * 1024)}\r\n\r\nhi`,
    );
  });
  using scan = scanRawSite(server);
  const error = await scanFailure(scan.fetchPage(`${SITE}/`));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "header_too_large");
});

Deno.test("limits: a page over 2 MiB is truncated at 2 MiB (Content-Length and chunked)", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  for (const path of [FIXTURE_PATHS.large, FIXTURE_PATHS.largeChunked]) {
    const page = await scan.fetchPage(`${SITE}${path}`);
    assert.ok(LARGE_PAGE_BYTES > 2 * MIB);
    assert.equal(page.truncated, true, path);
    assert.equal(page.byteLength, 2 * MIB, path);
    assert.equal(page.body.length, 2 * MIB, path);
  }
  const small = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.page}`);
  assert.equal(small.truncated, false);
});

Deno.test("limits: the cap applies to decoded bytes, so a gzip bomb stops at 2 MiB", async () => {
  await using h = await startScanHarness();
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.gzipBomb}`);
  assert.equal(page.truncated, true);
  assert.equal(page.byteLength, 2 * MIB);
  const small = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.gzip}`, { maxBytes: 100 });
  assert.equal(small.byteLength, 100);
  assert.equal(small.truncated, true);
});

Deno.test("limits: past the cap, reading stops and the socket is closed while the server still sends", async () => {
  let serverSaw: "closed" | "finished" = "finished";
  await using server = startRawSite(async (conn, signal) => {
    await writeText(conn, "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n");
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    try {
      for (let sent = 0; sent < 64 * MIB && !signal.aborted; sent += chunk.byteLength) {
        await conn.write(chunk);
      }
    } catch {
      serverSaw = "closed";
    }
  });
  using scan = scanRawSite(server, { requestTimeoutMs: 5000 });
  const started = performance.now();
  const page = await scan.fetchPage(`${SITE}/`, { maxBytes: 256 * 1024 });
  assert.equal(page.truncated, true);
  assert.equal(page.byteLength, 256 * 1024);
  assert.ok(performance.now() - started < 3000);
  await server.close();
  assert.equal(serverSaw, "closed");
});

Deno.test("limits: the scan budget is shared by every fetch of a scan", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 400 },
    fetcher: { limits: { requestTimeoutMs: 5000 } },
  });
  using scan = h.fetcher.startScan({ budgetMs: 650 });
  const first = await scan.fetchPage(`${SITE}${FIXTURE_PATHS.slowHeaders}`);
  assert.equal(first.status, 200);
  const error = await scanFailure(scan.fetchPage(`${SITE}${FIXTURE_PATHS.slowHeaders}`));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "scan_budget");
  assert.equal(scan.deadline.signal.aborted, true);
  const after = await scanFailure(scan.fetchPage(`${SITE}${FIXTURE_PATHS.page}`));
  assert.equal(after.reason, "scan_budget");
});

Deno.test("limits: a robots.txt fetch that runs out of scan budget ends the scan (502)", async () => {
  await using h = await startScanHarness({
    site: { slowMs: 2000, robots: "slow" },
    fetcher: { limits: { requestTimeoutMs: 5000 } },
  });
  using scan = h.fetcher.startScan({ budgetMs: 200 });
  const error = await scanFailure(scan.fetchPage(`${SITE}/page.html`));
  assert.equal(error.reason, "scan_budget");
});

Deno.test("limits: the caller's signal ends a scan", async () => {
  await using h = await startScanHarness({ site: { slowMs: 3000 } });
  const controller = new AbortController();
  using scan = h.fetcher.startScan({ signal: controller.signal });
  const fetching = scan.fetchPage(`${SITE}${FIXTURE_PATHS.slowHeaders}`);
  setTimeout(() => controller.abort(), 100);
  const error = await scanFailure(fetching);
  assert.equal(error.reason, "aborted");
  assert.equal(error.status, 502);
});

Deno.test("limits: a connection attempt that hangs times out, and a late connection is closed", async () => {
  await using h = await startScanHarness();
  const late = Promise.withResolvers<void>();
  const slowConnector: Connector = async (target) => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: h.site.port });
    late.resolve();
    void target;
    return conn;
  };
  const fetcher = createSafeFetcher({
    resolve: fakeResolver({ "site.test": [PUBLIC_V4] }),
    connect: slowConnector,
    limits: { connectTimeoutMs: 50 },
  });
  using scan = fetcher.startScan();
  const error = await scanFailure(scan.fetchPage(`${SITE}/page.html`));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "connect_timeout");
  await late.promise;
  await new Promise((resolve) => setTimeout(resolve, 20));
});

Deno.test("Deadline: nests, reports what is left, and aborts with the first reason to fire", async () => {
  const outer = new Deadline(60, { reason: new ScanError("unreachable", "outer", "Outer") });
  const inner = new Deadline(10_000, {
    reason: new ScanError("unreachable", "inner", "Inner"),
    parent: outer,
  });
  assert.ok(inner.remainingMs() <= 60);
  await new Promise((resolve) => inner.signal.addEventListener("abort", resolve));
  assert.equal((inner.signal.reason as ScanError).reason, "outer");
  assert.equal(inner.remainingMs(), 0);
  assert.throws(() => inner.throwIfExpired(), (error) => (error as ScanError).reason === "outer");
  inner.dispose();
  outer.dispose();
  const parent = new AbortController();
  parent.abort(new Error("caller left"));
  const child = new Deadline(1000, {
    reason: new ScanError("unreachable", "x", "X"),
    parent: parent.signal,
  });
  assert.equal((child.signal.reason as ScanError).reason, "aborted");
  child.dispose();
});
