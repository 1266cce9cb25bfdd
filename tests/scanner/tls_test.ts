/**
 * HTTPS over a pinned connection: the socket goes to the checked address,
 * the TLS handshake names the original host (SNI) and the certificate is
 * verified against that name. The server is a loopback fixture with a
 * certificate for made-up names, signed by a CA generated for the test.
 */
import assert from "node:assert/strict";
import { PUBLIC_V4 } from "../support/fake_network.ts";
import { PAGE_TEXT } from "../support/fixture_site.ts";
import { scanFailure, startScanHarness } from "../support/scan_harness.ts";
import { generateTestCertificates } from "../support/test_certificates.ts";

const certificates = await generateTestCertificates(["secure.test", "www.secure.test"]);

function tlsHarness(caCerts: string[] | undefined) {
  return startScanHarness({
    site: { tls: { cert: certificates.cert, key: certificates.key } },
    names: {
      "secure.test": [PUBLIC_V4],
      "www.secure.test.": [PUBLIC_V4],
      "impostor.test": [PUBLIC_V4],
    },
    fetcher: { caCerts },
  });
}

Deno.test("https: the page is fetched over TLS from the checked address, verified for the host name", async () => {
  await using h = await tlsHarness([certificates.caCert]);
  using scan = h.fetcher.startScan();
  const page = await scan.fetchPage("https://secure.test/page.html");
  assert.equal(page.status, 200);
  assert.ok(page.body.includes(PAGE_TEXT));
  assert.equal(page.url, "https://secure.test/page.html");
  assert.deepEqual(h.connect.calls, [
    { address: PUBLIC_V4, port: 443 },
    { address: PUBLIC_V4, port: 443 },
  ]);
  assert.deepEqual(h.site.requests.map((request) => request.host), [
    "secure.test",
    "secure.test",
  ]);
  assert.equal((await scan.fetchPage("https://www.secure.test./page.html")).status, 200);
});

Deno.test("https: a certificate for another name fails the handshake (502), though the address passed", async () => {
  await using h = await tlsHarness([certificates.caCert]);
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scan.fetchPage("https://impostor.test/page.html"));
  assert.equal(error.status, 502);
  assert.equal(error.reason, "tls");
  assert.deepEqual(h.connect.calls, [{ address: PUBLIC_V4, port: 443 }]);
  assert.deepEqual(h.site.requests, []);
});

Deno.test("https: a certificate from an untrusted authority fails the handshake (502)", async () => {
  await using h = await tlsHarness(undefined);
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scan.fetchPage("https://secure.test/page.html"));
  assert.equal(error.reason, "tls");
  assert.deepEqual(h.site.requests, []);
});

Deno.test("https: plain HTTP to a TLS port ends at once: an unreadable robots.txt disallows the scan", async () => {
  await using h = await tlsHarness([certificates.caCert]);
  using scan = h.fetcher.startScan();
  const error = await scanFailure(scan.fetchPage("http://secure.test/page.html"));
  assert.equal(error.status, 403);
  assert.equal(error.reason, "robots_unavailable");
});
