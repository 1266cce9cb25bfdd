import assert from "node:assert/strict";
import { canonicalAddress, classifyAddress } from "../../shared/scanner/address_policy.ts";
import { REFUSED_ADDRESSES } from "../support/ssrf_matrix.ts";

Deno.test("classifyAddress() refuses every non-public class with the class as the reason", () => {
  for (const [address, reason] of Object.entries(REFUSED_ADDRESSES)) {
    assert.deepEqual(classifyAddress(address), { allowed: false, reason }, address);
  }
});

Deno.test("classifyAddress() allows public unicast addresses, canonicalised", () => {
  assert.deepEqual(classifyAddress("93.184.215.14"), { allowed: true, address: "93.184.215.14" });
  assert.deepEqual(classifyAddress("8.8.8.8"), { allowed: true, address: "8.8.8.8" });
  assert.deepEqual(classifyAddress("2606:4700:0:0::1"), { allowed: true, address: "2606:4700::1" });
  assert.deepEqual(classifyAddress("2A00:1450::1"), { allowed: true, address: "2a00:1450::1" });
});

Deno.test("classifyAddress() judges IPv4-mapped IPv6 by its IPv4 and connects to the IPv4", () => {
  assert.deepEqual(classifyAddress("::ffff:93.184.215.14"), {
    allowed: true,
    address: "93.184.215.14",
  });
});

Deno.test("classifyAddress() refuses what is not a strict address literal", () => {
  for (
    const text of [
      "",
      "localhost",
      "127.1",
      "0x7f000001",
      "2130706433",
      "0177.0.0.1",
      "010.0.0.1",
      "1.2.3.256",
      "fe80::1%eth0",
      "[::1]",
      "::1::2",
      "1.2.3.4\n",
    ]
  ) {
    assert.deepEqual(classifyAddress(text), { allowed: false, reason: "invalid_address" }, text);
  }
});

Deno.test("canonicalAddress() writes addresses as URL hosts are written", () => {
  assert.equal(canonicalAddress("127.0.0.1"), "127.0.0.1");
  assert.equal(canonicalAddress("0:0:0:0:0:0:0:1"), "::1");
  assert.equal(canonicalAddress("::FFFF:127.0.0.1"), "::ffff:7f00:1");
  assert.equal(canonicalAddress("127.1"), undefined);
});
