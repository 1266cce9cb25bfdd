/**
 * fast-check generators of hostile request bodies for the endpoint fuzz
 * tests: from one endpoint's arbitrary of VALID bodies, every kind of request
 * a careless or hostile client sends. Each generated request says what kind
 * it is, so a failure names it (with fast-check's seed and path).
 *
 * Kinds: `valid`; `mutated` (a field dropped, added, retyped, the object
 * wrapped or replaced); `wrong-type` (any JSON value as the whole body);
 * `huge` (a field, or the body, of up to 1.5 MB); `deep` (nesting up to
 * 100,000 levels, alone or inside a valid body); `surrogate` (lone UTF-16
 * surrogates as JSON escapes, and as raw bytes that are not UTF-8); `proto`
 * (`__proto__`, `constructor` and `prototype` keys, at the top and nested);
 * `content-type` (a valid body under another or no content type);
 * `truncated` (a valid body's JSON cut short); `garbage` (random bytes and
 * text).
 */
import fc from "fast-check";

/** One generated request: its body bytes and its Content-Type (null: none sent). */
export interface HostileRequest {
  kind:
    | "valid"
    | "mutated"
    | "wrong-type"
    | "huge"
    | "deep"
    | "surrogate"
    | "proto"
    | "content-type"
    | "truncated"
    | "garbage";
  body: Uint8Array<ArrayBuffer>;
  contentType: string | null;
  /** A short description for failure messages (never the whole body). */
  describe(): string;
}

const JSON_TYPE = "application/json";
const encoder = new TextEncoder();

/** A JSON object body. */
export type JsonObject = Record<string, unknown>;

function request(
  kind: HostileRequest["kind"],
  text: string | Uint8Array,
  contentType: string | null = JSON_TYPE,
): HostileRequest {
  const body = typeof text === "string" ? encoder.encode(text) : new Uint8Array(text);
  const describe = () => {
    const head = new TextDecoder().decode(body.slice(0, 300));
    return `${kind} (${body.byteLength} bytes, content-type ${contentType}): ${
      JSON.stringify(head)
    }`;
  };
  // fast-check prints a counterexample with this, not as a byte array.
  const sent: HostileRequest = { kind, body, contentType, describe };
  return Object.assign(sent, { [fc.toStringMethod]: describe });
}

/** Strings meant to break things: lone surrogates, control characters, NUL, BOM, RTL marks. */
export const NASTY_STRINGS = [
  "\uD800",
  "\uDFFF",
  "a\uDC00b",
  "\uDBFF\uDBFF",
  "\u0000",
  "\u0007\b\f\v",
  "\r\n\t",
  "\uFEFF",
  "\u202E\u2066",
  "💥".repeat(3),
  "\\",
  '"',
  "</script><script>alert(1)</script>",
  "'; drop table public.accounts; --",
  "%00%0d%0a",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "__proto__",
  "NaN",
  "",
  " ",
];

/** Any string, biased towards nasty ones. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 40, unit: "binary" }), weight: 2 },
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 3 },
  {
    arbitrary: fc.array(fc.constantFrom(...NASTY_STRINGS), { maxLength: 5 }).map((parts) =>
      parts.join("")
    ),
    weight: 1,
  },
);

/** Any JSON value, strings nasty, shallow. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, [], {}),
);

const KEYS_OF_PROTOTYPES = ["__proto__", "constructor", "prototype"] as const;

/** A valid object with a field dropped, added, retyped or nested wrong; or wrapped. */
function mutate(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), anyJson, nastyString, fc.nat(5)).map(
    ([body, pick, value, name, op]) => {
      const keys = Object.keys(body);
      const key = keys.length === 0 ? "x" : keys[pick % keys.length];
      const copy: JsonObject = { ...body };
      switch (op) {
        case 0: // a required or optional field missing
          delete copy[key];
          return copy;
        case 1: // an unknown field, any name
          copy[name === "" ? "extra" : name] = value;
          return copy;
        case 2: // a field of the wrong type (or a wrong value of the right type)
          copy[key] = value;
          return copy;
        case 3: // the right value nested one level too deep
          copy[key] = [copy[key]];
          return copy;
        case 4: // the body wrapped
          return pick % 2 === 0 ? [body] : { data: body };
        default: // the field's value replaced by a nasty string
          copy[key] = name;
          return copy;
      }
    },
  );
}

/** JSON text with `key` spliced in as the first member of the object text `objectText`. */
function spliceKey(objectText: string, key: string, value: unknown): string {
  const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  return objectText === "{}" ? `{${member}}` : `{${member},${objectText.slice(1)}`;
}

/** Every array in `value` gets a prototype key spliced into its first object, as text. */
function protoBodies(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<string> {
  return fc.tuple(
    valid,
    fc.constantFrom(...KEYS_OF_PROTOTYPES),
    fc.oneof(
      anyJson,
      fc.constant({ isAdmin: true, api_key: "cas_live_polluted", action: "verify" }),
      fc.constant({ prototype: { polluted: true } }),
    ),
    fc.boolean(),
  ).map(([body, key, value, nested]) => {
    const text = JSON.stringify(body);
    if (nested) {
      // Into the first object found inside the body (e.g. a message), else a new field.
      const firstInner = text.indexOf("{", 1);
      if (firstInner > 0) {
        const before = text.slice(0, firstInner);
        const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
        const after = text.slice(firstInner + 1);
        return `${before}{${member}${after.startsWith("}") ? "" : ","}${after}`;
      }
      return spliceKey(text, "nested", { [key]: value });
    }
    return spliceKey(text, key, value);
  });
}

/** A string of `size` UTF-16 units, ASCII, escaped or astral. */
function hugeString(): fc.Arbitrary<string> {
  return fc.tuple(
    fc.integer({ min: 1_000, max: 1_500_000 }),
    fc.constantFrom("a", "😀", "\u0001", "é", " ", '"'),
  ).map(([size, unit]) => unit.repeat(Math.max(1, Math.floor(size / unit.length))));
}

/** Nesting of `depth` levels: arrays or objects, as text (JSON.stringify would recurse). */
function deepText(): fc.Arbitrary<string> {
  return fc.tuple(fc.integer({ min: 50, max: 100_000 }), fc.boolean(), fc.boolean()).map(
    ([depth, arrays, closed]) => {
      const open = arrays ? "[".repeat(depth) : '{"a":'.repeat(depth);
      const inner = arrays ? "1" : "1";
      const close = (arrays ? "]" : "}").repeat(depth);
      return closed ? open + inner + close : open + inner;
    },
  );
}

/** Lone surrogates: escaped in JSON (valid JSON, not valid Unicode) or as raw bytes (not UTF-8). */
function surrogateBodies(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<HostileRequest> {
  const lone = fc.constantFrom("\uD800", "\uDBFF", "\uDC00", "\uDFFF", "x\uD83D", "\uDE00y");
  return fc.tuple(valid, fc.nat(), lone, fc.boolean()).map(([body, pick, surrogate, raw]) => {
    const keys = Object.keys(body);
    const key = keys[pick % keys.length];
    const copy: JsonObject = { ...body };
    const current = copy[key];
    copy[key] = typeof current === "string" ? current + surrogate : surrogate;
    // JSON.stringify escapes a lone surrogate as \udxxx: valid JSON text.
    const text = JSON.stringify(copy);
    if (!raw) return request("surrogate", text);
    // The same surrogate as CESU-style bytes (ED A0 80): not UTF-8.
    const [prefix, suffix] = [text.slice(0, 1), text.slice(1)];
    const bytes = new Uint8Array([
      ...encoder.encode(prefix),
      0xed,
      0xa0 + (pick % 16),
      0x80,
      ...encoder.encode(suffix),
    ]);
    return request("surrogate", bytes);
  });
}

/** Content types other than JSON, or none. */
const WRONG_TYPES = [
  null,
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "application/json-patch+json",
  "application/xml",
  "json",
  "*/*",
  "",
];

/**
 * Requests of every hostile kind around `valid` (the endpoint's valid bodies).
 * `valid` bodies make about a quarter of the runs.
 */
export function hostileRequests(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<HostileRequest> {
  return fc.oneof(
    { arbitrary: valid.map((body) => request("valid", JSON.stringify(body))), weight: 8 },
    { arbitrary: mutate(valid).map((body) => request("mutated", JSON.stringify(body))), weight: 8 },
    { arbitrary: anyJson.map((value) => request("wrong-type", JSON.stringify(value))), weight: 3 },
    {
      arbitrary: fc.tuple(valid, hugeString(), fc.nat(), fc.boolean()).map(
        ([body, huge, pick, whole]) => {
          if (whole) return request("huge", JSON.stringify(huge));
          const keys = Object.keys(body);
          return request("huge", JSON.stringify({ ...body, [keys[pick % keys.length]]: huge }));
        },
      ),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(valid, deepText(), fc.boolean()).map(([body, deep, inside]) =>
        request(
          "deep",
          inside ? spliceKey(JSON.stringify(body), "deep", 0).replace("0", deep) : deep,
        )
      ),
      weight: 1,
    },
    { arbitrary: surrogateBodies(valid), weight: 2 },
    { arbitrary: protoBodies(valid).map((text) => request("proto", text)), weight: 3 },
    {
      arbitrary: fc.tuple(valid, fc.constantFrom(...WRONG_TYPES)).map(([body, type]) =>
        request("content-type", JSON.stringify(body), type)
      ),
      weight: 2,
    },
    {
      arbitrary: fc.tuple(valid, fc.nat()).map(([body, cut]) => {
        const text = JSON.stringify(body);
        return request("truncated", text.slice(0, cut % text.length));
      }),
      weight: 2,
    },
    {
      arbitrary: fc.oneof(
        fc.uint8Array({ maxLength: 200 }).map((bytes) => request("garbage", bytes)),
        fc.string({ maxLength: 200, unit: "binary" }).map((text) => request("garbage", text)),
      ),
      weight: 1,
    },
  );
}

/** The seed of the fuzz runs: FUZZ_SEED when set (to replay a failure), else a fixed one. */
export function fuzzSeed(): number {
  const value = Deno.env.get("FUZZ_SEED");
  return value === undefined || value === "" ? 20261124 : Number(value);
}
