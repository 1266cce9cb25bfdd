import assert from "node:assert/strict";
import { isAllowListed, parseAllowedTargets } from "../../shared/scanner/allowed_targets.ts";

Deno.test("parseAllowedTargets() reads IP and IP:port entries, IPv6 with or without brackets", () => {
  assert.deepEqual(
    parseAllowedTargets([
      "127.0.0.1",
      " 127.0.0.1:8080 ",
      "::1",
      "[::1]",
      "[::1]:8443",
      "[0:0:0:0:0:0:0:1]:1",
    ]),
    [
      { address: "127.0.0.1" },
      { address: "127.0.0.1", port: 8080 },
      { address: "::1" },
      { address: "::1" },
      { address: "::1", port: 8443 },
      { address: "::1", port: 1 },
    ],
  );
  assert.deepEqual(parseAllowedTargets([]), []);
});

Deno.test("parseAllowedTargets() refuses names, alternative notations, bad ports and wildcards", () => {
  for (
    const entry of [
      "localhost",
      "localhost:8080",
      "site.test",
      "127.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.0.0.1:0",
      "127.0.0.1:65536",
      "127.0.0.1:",
      "127.0.0.1:http",
      "[::1]:",
      "[127.0.0.1]",
      "::1]:80",
      "0.0.0.0",
      "[::]:8080",
      "http://127.0.0.1/",
      "",
    ]
  ) {
    assert.throws(() => parseAllowedTargets([entry]), TypeError, entry);
  }
});

Deno.test("parseAllowedTargets() names a bad entry by position, never by value", () => {
  assert.throws(() => parseAllowedTargets(["127.0.0.1", "secret-host:99"]), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^Allowed target 2 /);
    assert.ok(!error.message.includes("secret-host"));
    return true;
  });
});

Deno.test("isAllowListed(): an IP entry opens the allowed ports only; an IP:port entry opens exactly that port", () => {
  const targets = parseAllowedTargets(["127.0.0.1", "[::1]:8080"]);
  const ports = [80, 443];
  assert.equal(isAllowListed(targets, "127.0.0.1", 80, ports), true);
  assert.equal(isAllowListed(targets, "127.0.0.1", 443, ports), true);
  assert.equal(isAllowListed(targets, "127.0.0.1", 8080, ports), false);
  assert.equal(isAllowListed(targets, "::1", 8080, ports), true);
  assert.equal(isAllowListed(targets, "::1", 80, ports), false);
  assert.equal(isAllowListed(targets, "::1", 8081, ports), false);
  assert.equal(isAllowListed(targets, "127.0.0.2", 80, ports), false);
  assert.equal(isAllowListed([], "127.0.0.1", 80, ports), false);
});
