import assert from "node:assert/strict";
import { HttpError } from "../../shared/http/http_error.ts";
import { readJsonBody } from "../../shared/http/read_body.ts";

function request(
  body: BodyInit | null,
  type = "application/json",
  headers: Record<string, string> = {},
) {
  return new Request("http://127.0.0.1/x", {
    method: "POST",
    body,
    headers: { "content-type": type, ...headers },
  });
}

async function refusal(req: Request, maxBytes = 64): Promise<string> {
  try {
    await readJsonBody(req, { maxBytes });
  } catch (error) {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_request");
    return error.message;
  }
  throw new Error("expected a refusal");
}

Deno.test("readJsonBody() parses JSON with or without a charset parameter", async () => {
  assert.deepEqual(await readJsonBody(request('{"a":1}'), { maxBytes: 64 }), { a: 1 });
  assert.deepEqual(
    await readJsonBody(request('{"a":"é"}', "application/json; charset=utf-8"), { maxBytes: 64 }),
    { a: "é" },
  );
});

Deno.test("readJsonBody() refuses other content types, empty bodies, bad UTF-8 and bad JSON", async () => {
  assert.match(await refusal(request('{"a":1}', "text/plain")), /Content-Type/);
  assert.match(await refusal(request("{}", "application/jsonx")), /Content-Type/);
  assert.match(await refusal(request("")), /empty/);
  assert.match(await refusal(request(null)), /empty/);
  assert.match(await refusal(request(new Uint8Array([0x7b, 0xff, 0x7d]))), /UTF-8/);
  assert.match(await refusal(request("{a:1}")), /JSON/);
});

Deno.test("readJsonBody() refuses a body over the cap by its Content-Length or while streaming", async () => {
  assert.match(await refusal(request("x".repeat(65))), /exceeds 64 bytes/);
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(16).fill(0x20));
    },
  });
  assert.match(await refusal(request(endless)), /exceeds 64 bytes/);
  assert.ok(pulled <= 6, `read ${pulled} chunks of an endless body`);
});
