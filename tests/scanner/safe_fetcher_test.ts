/** createSafeFetcher(): its defaults and the options it refuses. */
import assert from "node:assert/strict";
import { Deadline } from "../../shared/scanner/deadline.ts";
import { DEFAULT_LIMITS } from "../../shared/scanner/fetch_limits.ts";
import {
  createSafeFetcher,
  DEFAULT_ALLOWED_PORTS,
  DEFAULT_USER_AGENT,
} from "../../shared/scanner/safe_fetcher.ts";
import { ScanError } from "../../shared/scanner/scan_error.ts";

Deno.test("createSafeFetcher() defaults: ports 80 and 443, the documented limits and User-Agent", () => {
  assert.deepEqual(DEFAULT_ALLOWED_PORTS, [80, 443]);
  assert.deepEqual(DEFAULT_LIMITS, {
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 10_000,
    scanBudgetMs: 25_000,
    maxPageBytes: 2 * 1024 * 1024,
    maxRobotsBytes: 500 * 1024,
    maxHeaderBytes: 32 * 1024,
    maxRedirects: 5,
  });
  assert.match(DEFAULT_USER_AGENT, /^ComplianceAuditBot\/1\.0 /);
});

Deno.test("createSafeFetcher() refuses a User-Agent that could split headers, bad ports and bad limits", () => {
  assert.throws(() => createSafeFetcher({ userAgent: "Bot/1.0\r\nX-Injected: 1" }), TypeError);
  assert.throws(() => createSafeFetcher({ userAgent: "" }), TypeError);
  assert.throws(() => createSafeFetcher({ allowedPorts: [0] }), TypeError);
  assert.throws(() => createSafeFetcher({ allowedPorts: [65536] }), TypeError);
  assert.throws(() => createSafeFetcher({ allowedPorts: [80.5] }), TypeError);
  assert.throws(() => createSafeFetcher({ limits: { maxPageBytes: -1 } }), TypeError);
  assert.throws(() => createSafeFetcher({ limits: { requestTimeoutMs: Number.NaN } }), TypeError);
});

Deno.test("startScan() owns a budget timer that close() clears", () => {
  const scan = createSafeFetcher().startScan({ budgetMs: 60_000 });
  assert.ok(scan.deadline.remainingMs() > 59_000);
  assert.equal(scan.deadline.signal.aborted, false);
  scan.close();
});

Deno.test("Deadline clamps delays beyond what timers hold instead of firing at once", async () => {
  using deadline = new Deadline(Number.MAX_SAFE_INTEGER, {
    reason: new ScanError("unreachable", "x", "X"),
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(deadline.signal.aborted, false);
});
