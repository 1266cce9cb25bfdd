import assert from "node:assert/strict";
import { ScanError } from "../../shared/scanner/scan_error.ts";
import { pageAddress, parseTargetUrl, redirectTarget } from "../../shared/scanner/target_url.ts";

function assertBadRequest(input: string, message: RegExp) {
  assert.throws(() => parseTargetUrl(input), (error) => {
    assert.ok(error instanceof ScanError);
    assert.equal(error.status, 400);
    assert.equal(error.kind, "bad_request");
    assert.match(error.message, message);
    assert.ok(input === "" || !error.message.includes(input), "the message must not echo the URL");
    return true;
  });
}

Deno.test("parseTargetUrl() accepts http and https URLs matching the contract pattern", () => {
  assert.equal(parseTargetUrl("https://site.test").url.href, "https://site.test/");
  assert.equal(parseTargetUrl("http://site.test/a?b=1#c").url.pathname, "/a");
  assert.equal(parseTargetUrl("http://site.test:8080/").url.port, "8080");
});

Deno.test("parseTargetUrl() refuses a space, tab or newline anywhere with 400", () => {
  for (
    const input of [
      "https://site.test/a b",
      " https://site.test/",
      "https://site.test/\n",
      "https://site.test/\tx",
      "https://si\nte.test/",
      "https://site.test/\r\nHost: evil",
    ]
  ) assertBadRequest(input, /spaces|control/);
});

Deno.test("parseTargetUrl() refuses non-ASCII and control characters with 400", () => {
  assertBadRequest("https://b\u00fccher.test/", /non-ASCII/);
  assertBadRequest("https://site.test/\u0000", /control/);
  assertBadRequest("https://site.test/\u007f", /control/);
});

Deno.test("parseTargetUrl() refuses other schemes and URLs outside the pattern with 400", () => {
  for (
    const input of [
      "ftp://site.test/",
      "file:///etc/passwd",
      "gopher://site.test/",
      "javascript:alert(1)",
      "data:text/html,hi",
      "HTTP://site.test/",
      "//site.test/",
      "site.test",
      "http:/site.test",
      "http://",
      "http:///path",
      "https://[::1/",
      "http://exa%mple.test/",
      "",
    ]
  ) assertBadRequest(input, /http or https URL/);
});

Deno.test("parseTargetUrl() refuses credentials, even empty ones, with 400", () => {
  for (
    const input of [
      "https://user:pass@site.test/",
      "https://user@site.test/",
      "https://:pass@site.test/",
      "https://@site.test/",
      "https://site.test@127.0.0.1/",
    ]
  ) assertBadRequest(input, /credentials/);
});

Deno.test("parseTargetUrl() refuses a URL over 2048 characters with 400", () => {
  assertBadRequest(`https://site.test/${"a".repeat(2048)}`, /at most 2048/);
});

Deno.test("parseTargetUrl() does not mistake a backslash for the end of credentials", () => {
  const target = parseTargetUrl("http://site.test\\@internal.test/");
  assert.equal(target.url.hostname, "site.test");
});

Deno.test("WHATWG parsing canonicalises every alternative IPv4 notation to dotted decimal", () => {
  const forms: Record<string, string> = {
    "http://2130706433/": "127.0.0.1",
    "http://017700000001/": "127.0.0.1",
    "http://0x7f000001/": "127.0.0.1",
    "http://0177.0.0.1/": "127.0.0.1",
    "http://0x7f.0.0.1/": "127.0.0.1",
    "http://0x7f.1/": "127.0.0.1",
    "http://127.1/": "127.0.0.1",
    "http://127.0.1/": "127.0.0.1",
    "http://0177.0x0.0.01/": "127.0.0.1",
    "http://127.000.000.001/": "127.0.0.1",
    "http://0/": "0.0.0.0",
    "http://0xa9fea9fe/": "169.254.169.254",
    "http://169.254.43518/": "169.254.169.254",
    "http://012.0.0.1/": "10.0.0.1",
    "http://[::ffff:127.0.0.1]/": "[::ffff:7f00:1]",
    "http://[0:0:0:0:0:0:0:1]/": "[::1]",
    "http://[::127.0.0.1]/": "[::7f00:1]",
  };
  for (const [input, hostname] of Object.entries(forms)) {
    const target = parseTargetUrl(input);
    assert.equal(target.url.hostname, hostname, input);
    assert.equal(target.hostAsWritten, false, `${input} is not written canonically`);
  }
});

Deno.test("WHATWG parsing rejects malformed numeric hosts rather than guessing", () => {
  for (const input of ["http://1.2.3.4.5/", "http://256.0.0.1/", "http://0x100000000/"]) {
    assertBadRequest(input, /http or https URL/);
  }
});

Deno.test("parseTargetUrl() marks a host written in canonical form", () => {
  assert.equal(parseTargetUrl("http://127.0.0.1:8080/").hostAsWritten, true);
  assert.equal(parseTargetUrl("http://[::1]:8080/").hostAsWritten, true);
  assert.equal(parseTargetUrl("http://Site.Test/").hostAsWritten, true);
  assert.equal(parseTargetUrl("http://[0::1]/").hostAsWritten, false);
});

Deno.test("redirectTarget() resolves relative locations and keeps hostAsWritten for the same host", () => {
  const from = parseTargetUrl("http://127.0.0.1:8080/a/b");
  const next = redirectTarget("../c?d=1", from);
  assert.equal(next.url.href, "http://127.0.0.1:8080/c?d=1");
  assert.equal(next.hostAsWritten, true);
  const notWritten = parseTargetUrl("http://2130706433:8080/");
  assert.equal(redirectTarget("/x", notWritten).hostAsWritten, false);
});

Deno.test("redirectTarget() judges an absolute location's host as written there", () => {
  const from = parseTargetUrl("http://127.0.0.1:8080/");
  assert.equal(redirectTarget("http://2130706433:8080/", from).hostAsWritten, false);
  assert.equal(redirectTarget("//0x7f.1:8080/", from).hostAsWritten, false);
  assert.equal(redirectTarget("\\\\0x7f.1:8080/", from).hostAsWritten, false);
  assert.equal(redirectTarget("http://127.0.0.1:8080/x", from).hostAsWritten, true);
});

Deno.test("redirectTarget() refuses other schemes and credentials with 403", () => {
  const from = parseTargetUrl("https://site.test/");
  for (
    const [location, reason] of [
      ["file:///etc/passwd", "scheme"],
      ["ftp://site.test/", "scheme"],
      ["javascript:alert(1)", "scheme"],
      ["https://user:pw@site.test/", "credentials"],
      ["//@site.test/", "credentials"],
    ]
  ) {
    assert.throws(() => redirectTarget(location, from), (error) => {
      assert.ok(error instanceof ScanError);
      assert.equal(error.status, 403);
      assert.equal(error.reason, reason);
      return true;
    }, location);
  }
});

Deno.test("redirectTarget() treats an unparsable location as a broken target (502)", () => {
  const from = parseTargetUrl("https://site.test/");
  assert.throws(() => redirectTarget("http://[::1/", from), (error) => {
    assert.ok(error instanceof ScanError);
    assert.equal(error.status, 502);
    return true;
  });
});

Deno.test("pageAddress() keeps origin and path, never the query or fragment", () => {
  assert.equal(
    pageAddress("https://shop.test/account/orders?sid=abc&t=1#top"),
    "https://shop.test/account/orders",
  );
  assert.equal(pageAddress("http://127.0.0.1:8080/?x=1"), "http://127.0.0.1:8080/");
  assert.equal(pageAddress("https://shop.test"), "https://shop.test/");
});
