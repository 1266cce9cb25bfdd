import assert from "node:assert/strict";
import { createBodyReadGate } from "../../shared/http/body_gate.ts";

Deno.test("createBodyReadGate() lets max readers in, queues the rest in order, and hands slots on", async () => {
  const gate = createBodyReadGate(2);
  const never = new AbortController().signal;
  const a = await gate.acquire(never);
  const b = await gate.acquire(never);
  assert.equal(gate.reading, 2);
  const order: string[] = [];
  const c = gate.acquire(never).then((release) => (order.push("c"), release));
  const d = gate.acquire(never).then((release) => (order.push("d"), release));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(order, []);
  a();
  a(); // a second release of the same slot changes nothing
  const releaseC = await c;
  assert.deepEqual(order, ["c"]);
  assert.equal(gate.reading, 2);
  b();
  const releaseD = await d;
  assert.deepEqual(order, ["c", "d"]);
  releaseC();
  releaseD();
  assert.equal(gate.reading, 0);
});

Deno.test("createBodyReadGate() drops a waiter whose signal aborts, and its slot is not lost", async () => {
  const gate = createBodyReadGate(1);
  const release = await gate.acquire(new AbortController().signal);
  const impatient = new AbortController();
  const waiting = gate.acquire(impatient.signal);
  impatient.abort(new Error("deadline"));
  await assert.rejects(waiting, /deadline/);
  await assert.rejects(gate.acquire(AbortSignal.abort(new Error("already"))), /already/);
  release();
  assert.equal(gate.reading, 0);
  const again = await gate.acquire(new AbortController().signal);
  assert.equal(gate.reading, 1);
  again();
  assert.throws(() => createBodyReadGate(0), RangeError);
});
