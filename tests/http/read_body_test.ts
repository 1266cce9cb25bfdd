import assert from "node:assert/strict";
import { HttpError } from "../../shared/http/http_error.ts";
import { createBodyReadGate } from "../../shared/http/body_gate.ts";
import { BodyReadersBusyError, readJsonBody } from "../../shared/http/read_body.ts";

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

/** A body that sends `chunk` and then nothing more, ever (until cancelled). */
function stalledBody(
  chunk = '{"a":',
): { stream: ReadableStream<Uint8Array>; cancelled: Promise<void> } {
  let cancelled!: () => void;
  const done = new Promise<void>((resolve) => cancelled = resolve);
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise(() => {}); // never another byte
      sent = true;
      controller.enqueue(new TextEncoder().encode(chunk));
    },
    cancel() {
      cancelled();
    },
  });
  return { stream, cancelled: done };
}

Deno.test("readJsonBody() gives a body that stops arriving its deadline: 400, and the stream is cancelled", async () => {
  const { stream, cancelled } = stalledBody();
  const started = performance.now();
  let caught: unknown;
  try {
    await readJsonBody(request(stream), { maxBytes: 1024, deadlineMs: 300 });
  } catch (error) {
    caught = error;
  }
  const ms = performance.now() - started;
  assert.ok(caught instanceof HttpError);
  assert.equal(caught.status, 400);
  assert.equal(caught.code, "invalid_request");
  assert.equal(caught.message, "Request body was not received within 1 s");
  assert.ok(ms >= 250 && ms < 3000, `refused after ${ms} ms, the deadline was 300`);
  await cancelled;
});

Deno.test("readJsonBody() refuses a Content-Encoding other than identity with 415, before reading", async () => {
  for (const encoding of ["gzip", "br", "deflate", "identity, gzip", "x-custom"]) {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    let caught: unknown;
    try {
      await readJsonBody(request(body, "application/json", { "content-encoding": encoding }), {
        maxBytes: 64,
      });
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof HttpError, encoding);
    assert.equal(caught.status, 415, encoding);
    assert.equal(caught.code, "invalid_request");
    assert.match(caught.message, /Content-Encoding/);
    assert.ok(pulled <= 1, `read ${pulled} chunks of a ${encoding} body`);
  }
  for (const encoding of ["identity", "IDENTITY", " identity "]) {
    const req = request('{"a":1}', "application/json", { "content-encoding": encoding });
    assert.deepEqual(await readJsonBody(req, { maxBytes: 64 }), { a: 1 });
  }
});

Deno.test("readJsonBody() waits for the gate within its deadline, and a full gate past it is BodyReadersBusyError", async () => {
  const gate = createBodyReadGate(1);
  const first = stalledBody();
  const slow = readJsonBody(request(first.stream), { maxBytes: 64, deadlineMs: 1500, gate })
    .catch((error) => error);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(gate.reading, 1);
  // The second body waits for the only slot, and its deadline ends first.
  const waiting = await readJsonBody(request('{"b":2}'), { maxBytes: 64, deadlineMs: 200, gate })
    .catch((error) => error);
  assert.ok(waiting instanceof BodyReadersBusyError);
  // The first read ends at its own deadline and gives the slot back.
  const refused = await slow;
  assert.ok(refused instanceof HttpError && refused.status === 400);
  assert.equal(gate.reading, 0);
  assert.deepEqual(
    await readJsonBody(request('{"c":3}'), { maxBytes: 64, deadlineMs: 1000, gate }),
    { c: 3 },
  );
});
