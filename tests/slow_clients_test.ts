/**
 * Slow and greedy clients against the local server as a process: a client
 * that never finishes its headers, an idle keep-alive connection, a body
 * dribbled a byte at a time, hundreds of them at once. The server closes or
 * answers each within its bounds, and its memory comes back afterwards.
 */
import assert from "node:assert/strict";
import { startServerProcess } from "./support/server_process.ts";

const encoder = new TextEncoder();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads until the peer closes (or resets) the connection; returns what it sent. */
async function readToClose(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  let text = "";
  try {
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
  } catch {
    // a reset is a close too
  }
  return text;
}

function connect(baseUrl: string): Promise<Deno.TcpConn> {
  const { hostname, port } = new URL(baseUrl);
  return Deno.connect({ hostname, port: Number(port) });
}

Deno.test("local server: a client that never finishes its headers is closed at HEADERS_TIMEOUT_MS; an idle one at IDLE_TIMEOUT_MS", async () => {
  const server = await startServerProcess({ HEADERS_TIMEOUT_MS: "1000", IDLE_TIMEOUT_MS: "1500" });
  try {
    // Half a header block, then nothing.
    const slow = await connect(server.baseUrl);
    const started = performance.now();
    await slow.write(encoder.encode("POST /functions/complianceAudit HTTP/1.1\r\nHost: x\r\n"));
    const nothing = await readToClose(slow);
    const slowMs = performance.now() - started;
    slow.close();
    assert.equal(nothing, "", "closed without an answer: no request ever began");
    assert.ok(slowMs >= 900 && slowMs < 1000 + 5000, `closed after ${slowMs} ms`);

    // A header line a second, each in time for an idle clock but never done.
    const dribbler = await connect(server.baseUrl);
    const dribbleStart = performance.now();
    const dribbling = (async () => {
      try {
        await dribbler.write(encoder.encode("POST /functions/complianceAudit HTTP/1.1\r\n"));
        for (let i = 0; i < 20; i++) {
          await sleep(300);
          await dribbler.write(encoder.encode(`X-Pad-${i}: y\r\n`));
        }
      } catch {
        // closed by the server
      }
    })();
    await readToClose(dribbler);
    const dribbleMs = performance.now() - dribbleStart;
    dribbler.close();
    await dribbling;
    assert.ok(dribbleMs < 1000 + 5000, `a dribbled header block was held ${dribbleMs} ms`);

    // A whole request is answered, then the idle keep-alive connection is closed.
    const idle = await connect(server.baseUrl);
    const body = JSON.stringify({ target_url: "nope" });
    await idle.write(encoder.encode(
      "POST /functions/runWebsiteAudit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    ));
    const idleStart = performance.now();
    const answer = await readToClose(idle);
    const idleMs = performance.now() - idleStart;
    idle.close();
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.ok(idleMs >= 1400 && idleMs < 1500 + 5000, `idle connection closed after ${idleMs} ms`);

    // The server still serves.
    const response = await fetch(`${server.baseUrl}/runWebsiteAudit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
  } finally {
    await server.stop();
  }
});

Deno.test("local server: 500 keyless clients dribbling bodies are all answered or closed, and memory comes back", async () => {
  const server = await startServerProcess({
    HEADERS_TIMEOUT_MS: "2000",
    BODY_TIMEOUT_MS: "3000",
    MAX_BODY_READS: "64",
  });
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  try {
    // The first round warms the process up (code compiled, heaps sized for
    // the load) and its end is the baseline; two more identical rounds must
    // end where it did, and never hold much more while they run. Generous
    // bounds: in the full suite RSS moves by 100 MB with garbage collection
    // alone; a server without deadlines held the same crowd open for good and
    // grew from 0.4 to 1.8 GB.
    const rounds = [];
    const ends: number[] = [];
    for (let round = 0; round < 3; round++) {
      rounds.push(await dribblingCrowd(server.baseUrl, 500, server.rss));
      ends.push(await server.rss());
    }
    console.log(
      `RSS after each round of 500 dribbling clients: ${ends.map(mb).join(" / ")} MB; ` +
        `during: ${rounds.map((round) => mb(round.during)).join(" / ")} MB`,
    );
    for (const round of rounds) {
      assert.equal(round.closedByServer, 500, "every dribbling connection was ended by the server");
      // complianceAudit: 401 at once. agentSubscribe: 400 at the body deadline,
      // or its 500 (Retry-After 1) for a body that never got a read slot.
      for (const status of Object.keys(round.counts)) {
        assert.ok(["400", "401", "500"].includes(status), JSON.stringify(round.counts));
      }
      assert.equal(round.counts["401"], 250, JSON.stringify(round.counts));
    }
    const baseline = ends[0];
    for (const [i, end] of ends.entries()) {
      if (i === 0) continue; // the warm-up round: what the first start left behind is freed in it
      assert.ok(
        end - baseline < 160 * 1024 * 1024,
        `round ${i + 1} ended ${mb(end - baseline)} MB up`,
      );
      assert.ok(
        rounds[i].during - baseline < 384 * 1024 * 1024,
        `round ${i + 1} held ${mb(rounds[i].during - baseline)} MB more`,
      );
    }

    // And it still serves.
    const response = await fetch(`${server.baseUrl}/runWebsiteAudit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(response.status, 400);
    await response.body?.cancel();
  } finally {
    await server.stop();
  }
});

/**
 * `clients` keyless connections, half to agentSubscribe (whose dashboard path
 * reads a keyless body for its key), half to complianceAudit (which answers
 * 401 without reading it), each dribbling a byte of its 16,000-byte body
 * every 250 ms until the server ends it. Returns the server's answers and
 * its RSS while they dribble.
 */
async function dribblingCrowd(
  baseUrl: string,
  clients: number,
  rss: () => Promise<number>,
) {
  const outcomes: Array<Promise<string>> = [];
  const conns: Deno.TcpConn[] = [];
  for (let i = 0; i < clients; i++) {
    const name = i % 2 === 0 ? "agentSubscribe" : "complianceAudit";
    const conn = await connect(baseUrl);
    conns.push(conn);
    await conn.write(encoder.encode(
      `POST /functions/${name} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: 16000\r\n\r\n{"action":"verify","api_key":"`,
    ));
    outcomes.push(readToClose(conn));
  }
  let closedByServer = 0;
  const dribbling = conns.map(async (conn, i) => {
    const done = outcomes[i].then(() => true);
    for (let n = 0; n < 120; n++) {
      const finished = await Promise.race([done, sleep(250).then(() => false)]);
      if (finished) {
        closedByServer++;
        return;
      }
      try {
        await conn.write(encoder.encode("a"));
      } catch {
        closedByServer++;
        return;
      }
    }
  });
  await sleep(1500);
  const during = await rss();
  await Promise.all(dribbling);
  // Whatever the server left open after 30 s of dribbling is closed here, so
  // a server without deadlines fails the count instead of hanging the test.
  for (const conn of conns) {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
  const answers = await Promise.all(outcomes);
  await sleep(3000);
  const counts: Record<string, number> = {};
  for (const text of answers) {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "closed";
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return { during, closedByServer, counts };
}
