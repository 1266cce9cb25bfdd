import assert from "node:assert/strict";
import { codePointLength } from "../../shared/contract/audit.ts";

Deno.test("codePointLength() counts characters as a string's iterator does", () => {
  const cases = [
    "",
    "plain text",
    "emoji 😀 and flags 🇫🇷",
    "😀".repeat(1000),
    "lone high \ud83d then text",
    "lone low \ude00 then text",
    "high at the end \ud83d",
    "low first \ude00\ud83d",
    "\ud83d\ud83d\ude00",
    "é (e + combining) é",
    "漢字のテキスト, two-byte without a surrogate",
  ];
  for (const text of cases) {
    assert.equal(codePointLength(text), [...text].length, JSON.stringify(text));
  }
});
