/**
 * The landing page script's pure parts, run by Deno: what it makes of a typed
 * address, of Retry-After, and which message each status gets. The browser
 * test (landing_page_browser_test.ts) shows them on the page.
 */
import assert from "node:assert/strict";
import { problemFor, retryAfterSeconds, targetFromInput } from "../../web/app.js";

Deno.test("a typed address gets https:// when it has no scheme; other schemes and blanks are refused", () => {
  assert.equal(targetFromInput("  www.example.com/shop "), "https://www.example.com/shop");
  assert.equal(targetFromInput("http://example.com"), "http://example.com");
  assert.equal(targetFromInput("HTTPS://Example.com/"), "HTTPS://Example.com/");
  assert.equal(targetFromInput("example.com:8080/x"), "https://example.com:8080/x");
  for (
    const bad of [
      "",
      "   ",
      "ftp://example.com/",
      "javascript:alert(1)",
      "mailto:a@b.test",
      "data:text/html,x",
    ]
  ) {
    assert.throws(() => targetFromInput(bad), Error, bad);
  }
});

Deno.test("Retry-After is read as seconds or as an HTTP date", () => {
  assert.equal(retryAfterSeconds("42"), 42);
  assert.equal(retryAfterSeconds(null), undefined);
  assert.equal(retryAfterSeconds(""), undefined);
  assert.equal(retryAfterSeconds("soon"), undefined);
  const now = Date.parse("2026-11-22T10:00:00Z");
  assert.equal(retryAfterSeconds("Sun, 22 Nov 2026 10:00:30 GMT", now), 30);
  assert.equal(retryAfterSeconds("Sun, 22 Nov 2026 09:00:00 GMT", now), 0);
});

Deno.test("each status the API answers has its own plain message; 403 tells robots from policy", () => {
  const titles = new Set<string>();
  for (const status of [400, 415, 429, 502, 500, 0, 418]) titles.add(problemFor(status).title);
  titles.add(problemFor(403, "The target's robots.txt disallows this URL for X").title);
  titles.add(problemFor(403, "The target is a private address").title);
  assert.equal(titles.size, 9);
  assert.match(problemFor(429, "Rate limit exceeded", 1).text, /again in 1 second \(at /);
  assert.match(problemFor(429, "Rate limit exceeded", 42).text, /again in 42 seconds \(at /);
  assert.match(problemFor(429, "Rate limit exceeded").text, /again in a minute/);
  for (const status of [400, 403, 415, 429, 502, 500]) {
    const { title, text } = problemFor(status, "any");
    assert.doesNotMatch(`${title} ${text}`, /undefined|null|NaN/, String(status));
  }
});
