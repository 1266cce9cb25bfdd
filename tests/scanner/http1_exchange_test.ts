/** The scanner's HTTP/1.1 client against responses scripted byte by byte. */
import assert from "node:assert/strict";
import { DEFAULT_USER_AGENT } from "../../shared/scanner/safe_fetcher.ts";
import type { ScanError } from "../../shared/scanner/scan_error.ts";
import { startRawSite, writeText } from "../support/raw_http_server.ts";
import { scanFailure, scanRawSite } from "../support/scan_harness.ts";

/** Fetches `/` from a raw site that answers with `response`. */
async function fetchScripted(response: string) {
  await using server = startRawSite(async (conn) => await writeText(conn, response));
  using scan = scanRawSite(server);
  return await scan.fetchPage("http://site.test/");
}

async function scriptedFailure(response: string): Promise<ScanError> {
  const error = await scanFailure(fetchScripted(response));
  assert.equal(error.status, 502);
  return error;
}

const HTML = "content-type: text/html\r\n";

Deno.test("exchange() sends one GET with Host, User-Agent, identity encoding and Connection: close", async () => {
  let head = "";
  await using server = startRawSite(async (conn, _signal, requestHead) => {
    head = requestHead;
    await writeText(conn, `HTTP/1.1 200 OK\r\n${HTML}content-length: 2\r\n\r\nok`);
  });
  using scan = scanRawSite(server);
  await scan.fetchPage("http://site.test/a%20b/c?q=1&r=%22#fragment");
  assert.equal(
    head,
    [
      "GET /a%20b/c?q=1&r=%22 HTTP/1.1",
      "Host: site.test",
      `User-Agent: ${DEFAULT_USER_AGENT}`,
      "Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
      "Accept-Encoding: identity",
      "Connection: close",
      "",
      "",
    ].join("\r\n"),
  );
});

Deno.test("exchange() reads a chunked body with extensions and trailers", async () => {
  const page = await fetchScripted(
    `HTTP/1.1 200 OK\r\n${HTML}Transfer-Encoding: chunked\r\n\r\n` +
      "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nx-trailer: yes\r\n\r\n",
  );
  assert.equal(page.body, "hello, world");
});

Deno.test("exchange() reads a body delimited by the connection closing", async () => {
  const page = await fetchScripted(`HTTP/1.0 200 OK\r\n${HTML}\r\n<p>until close</p>`);
  assert.equal(page.body, "<p>until close</p>");
});

Deno.test("exchange() accepts bare LF line ends and skips interim 1xx responses", async () => {
  const page = await fetchScripted(
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\ncontent-type: text/html\ncontent-length: 2\n\nok",
  );
  assert.equal(page.status, 200);
  assert.equal(page.body, "ok");
});

Deno.test("exchange() keeps repeated headers", async () => {
  const page = await fetchScripted(
    `HTTP/1.1 200 OK\r\n${HTML}set-cookie: a=1\r\nset-cookie: b=2\r\ncontent-length: 0\r\n\r\n`,
  );
  assert.deepEqual(page.headers.getSetCookie(), ["a=1", "b=2"]);
});

Deno.test("exchange() refuses malformed responses with 502", async () => {
  const cases: Record<string, string> = {
    "empty reply": "",
    "HTTP/2 status line": `HTTP/2 200 OK\r\n${HTML}\r\n`,
    "not HTTP": "SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "status out of range": `HTTP/1.1 099 Odd\r\n${HTML}\r\n`,
    "header without colon": `HTTP/1.1 200 OK\r\n${HTML}broken\r\n\r\n`,
    "obsolete line folding": `HTTP/1.1 200 OK\r\n${HTML}x-a: 1\r\n  folded\r\n\r\n`,
    "conflicting lengths": `HTTP/1.1 200 OK\r\n${HTML}content-length: 5, 6\r\n\r\nhello`,
    "negative length": `HTTP/1.1 200 OK\r\n${HTML}content-length: -1\r\n\r\n`,
    "body shorter than its length": `HTTP/1.1 200 OK\r\n${HTML}content-length: 100\r\n\r\nshort`,
    "bad chunk size": `HTTP/1.1 200 OK\r\n${HTML}transfer-encoding: chunked\r\n\r\nzz\r\n`,
    "chunk without CRLF": `HTTP/1.1 200 OK\r\n${HTML}transfer-encoding: chunked\r\n\r\n2\r\nokX`,
    "switching protocols": "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n",
  };
  for (const [name, response] of Object.entries(cases)) {
    const error = await scriptedFailure(response);
    assert.equal(error.reason, "protocol", name);
  }
});

Deno.test("exchange() refuses transfer and content codings it does not implement", async () => {
  const transfer = await scriptedFailure(
    `HTTP/1.1 200 OK\r\n${HTML}transfer-encoding: gzip, chunked\r\n\r\n`,
  );
  assert.equal(transfer.reason, "transfer_encoding");
  const content = await scriptedFailure(
    `HTTP/1.1 200 OK\r\n${HTML}content-encoding: br\r\ncontent-length: 2\r\n\r\nok`,
  );
  assert.equal(content.reason, "content_encoding");
});

Deno.test("exchange() reports a corrupt gzip body as a broken response (502)", async () => {
  const error = await scriptedFailure(
    `HTTP/1.1 200 OK\r\n${HTML}content-encoding: gzip\r\ncontent-length: 10\r\n\r\nnot-gzip!!`,
  );
  assert.equal(error.reason, "connection");
});

Deno.test("exchange() never puts response bytes in an error message", async () => {
  const error = await scriptedFailure("SECRET-BANNER internal-host 10.1.2.3\r\n\r\n");
  assert.ok(!error.message.includes("SECRET"));
  assert.ok(!error.message.includes("10.1.2.3"));
});
