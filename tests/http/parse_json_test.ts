import assert from "node:assert/strict";
import { z } from "zod";
import { enforceLimit } from "../../shared/http/enforce_limit.ts";
import { HttpError } from "../../shared/http/http_error.ts";
import { parseInput, parseJson } from "../../shared/http/parse_json.ts";

const Schema = z.strictObject({ name: z.string().min(1) });

function request(body: string, type = "application/json") {
  return new Request("http://127.0.0.1/x", {
    method: "POST",
    body,
    headers: { "content-type": type },
  });
}

async function refusal(run: () => Promise<unknown> | unknown): Promise<HttpError> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error;
  }
  throw new Error("expected a refusal");
}

Deno.test("parseJson() returns the schema's output for a valid body", async () => {
  assert.deepEqual(await parseJson(request('{"name":"a"}'), Schema, { maxBytes: 64 }), {
    name: "a",
  });
});

Deno.test("parseJson() refuses with 400 invalid_request, naming the field and never the value", async () => {
  for (
    const [req, message] of [
      [request('{"name":""}'), /^name: /],
      [request('{"name":"a","SECRET_VALUE":1}'), /^Unknown field: SECRET_VALUE$/],
      [request('{"name":"a"}', "text/plain"), /Content-Type/],
      [request("{"), /not valid JSON/],
      [request(`{"name":"${"x".repeat(100)}"}`), /exceeds 64 bytes/],
    ] as const
  ) {
    const error = await refusal(() => parseJson(req, Schema, { maxBytes: 64 }));
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, message);
  }
  const pasted = await refusal(() => parseInput(Schema, { name: "a", "cas_live_x y": 1 }));
  assert.equal(pasted.message.includes("cas_live"), false);
  for (const secret of ["sk_live_51Hx9aQ2", "ghp_a1b2c3d4e5", "Xk29fQ7Lm3Zp8Rt"]) {
    const shaped = await refusal(() => parseInput(Schema, { name: "a", [secret]: 1 }));
    assert.equal(shaped.message, "Unknown field", `a token-shaped name (${secret}) is not echoed`);
  }
  const typo = await refusal(() => parseInput(Schema, { name: "a", jurisdiction_2: 1 }));
  assert.equal(typo.message, "Unknown field: jurisdiction_2", "an ordinary name still is");
});

Deno.test("enforceLimit() passes within the limit and throws 429 rate_limited with Retry-After past it", async () => {
  const seen: unknown[] = [];
  const limiter = (success: boolean) => ({
    limit(key: string, max: number, windowSeconds: number) {
      seen.push([key, max, windowSeconds]);
      return Promise.resolve({
        success,
        remaining: 0,
        reset: Date.now() + 2500,
        retryAfterMs: success ? 0 : 2500,
      });
    },
  });
  await enforceLimit(limiter(true), "k", 5, 60);
  const error = await refusal(() => enforceLimit(limiter(false), "k", 5, 60));
  assert.equal(error.status, 429);
  assert.equal(error.code, "rate_limited");
  assert.equal(error.headers["Retry-After"], "3", "2.5 s rounds up: a client waiting 2 s is early");
  assert.deepEqual(seen, [["k", 5, 60], ["k", 5, 60]]);
  const failing = { limit: () => Promise.reject(new Error("down")) };
  await assert.rejects(
    enforceLimit(failing, "k", 5, 60),
    (e: unknown) => !(e instanceof HttpError),
  );
});
