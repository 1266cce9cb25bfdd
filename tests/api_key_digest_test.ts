import assert from "node:assert/strict";
import { sha256Hex } from "../shared/auth/api_key.ts";

async function subtleHex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256Hex() is the hex SHA-256 of the UTF-8 text, as stored digests expect", async () => {
  assert.equal(
    await sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  // Non-ASCII, astral characters and a lone surrogate (encoded as U+FFFD)
  // digest exactly as WebCrypto over TextEncoder's bytes.
  for (const value of ["café", "😀".repeat(30_000), "lone \ud800 surrogate", "x".repeat(100_001)]) {
    assert.equal(await sha256Hex(value), await subtleHex(value));
  }
});
