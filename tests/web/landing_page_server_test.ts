/**
 * The local server serves the landing page (web/) at `/` and its files, for
 * GET and HEAD only, and nothing else of the disk; every other request still
 * reaches the API's router and its 404 `{ error }`.
 */
import assert from "node:assert/strict";
import { LANDING_PAGE_HEADERS, withLandingPage } from "../../scripts/landing_page.ts";
import { localHandler } from "../../scripts/server.ts";
import { createLogger } from "../../shared/log/logger.ts";
import { createMemoryLimiter } from "../../shared/ratelimit/memory_limiter.ts";
import type { Db } from "../../shared/db/db.ts";

const api = (req: Request) =>
  Promise.resolve(Response.json({ error: `api ${req.method} ${new URL(req.url).pathname}` }, {
    status: 404,
  }));

const get = (path: string, method = "GET") =>
  withLandingPage(api)(new Request(`http://127.0.0.1${path}`, { method }));

Deno.test("the landing page is served at / with its policy headers", async () => {
  const response = await get("/");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  for (const [name, value] of Object.entries(LANDING_PAGE_HEADERS)) {
    assert.equal(response.headers.get(name), value, name);
  }
  const html = await response.text();
  assert.equal(html, await Deno.readTextFile(new URL("../../web/index.html", import.meta.url)));
  assert.match(html, /<meta name="api-base-url" content="\/functions">/);
});

Deno.test("the page's stylesheet and script are served with their types; HEAD has no body", async () => {
  const css = await get("/style.css");
  assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
  assert.ok((await css.text()).length > 0);
  const js = await get("/app.js");
  assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(await js.text(), /runWebsiteAudit/);
  const head = await get("/", "HEAD");
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  assert.ok(Number(head.headers.get("content-length")) > 0);
});

Deno.test("only the page's own files, and only GET and HEAD, leave the router's 404 behind", async () => {
  for (
    const path of [
      "/../deno.json",
      "/%2e%2e/deno.json",
      "/web/index.html",
      "/deno.json",
      "/app.js/",
      "/index.html/x",
      "/functions/runWebsiteAudit",
    ]
  ) {
    const response = await get(path);
    assert.equal(response.status, 404, path);
    assert.match((await response.json()).error, /^api GET /, path);
  }
  for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
    const response = await get("/", method);
    assert.equal(response.status, 404, method);
    assert.equal((await response.json()).error, `api ${method} /`);
  }
});

Deno.test("a missing web directory serves nothing and leaves everything to the router", async () => {
  const handler = withLandingPage(api, new URL("./no-such-dir/", import.meta.url));
  const response = await handler(new Request("http://127.0.0.1/"));
  assert.equal(response.status, 404);
  await response.body?.cancel();
});

Deno.test("the local server's handler serves the page at / and keeps POST / a 404 { error }", async () => {
  const lines: string[] = [];
  const handler = localHandler({
    db: {} as Db,
    limiter: createMemoryLimiter(),
    logger: createLogger({ write: (line) => lines.push(line) }),
    corsOrigins: ["*"],
    trustedProxyHops: 0,
  });
  const page = await handler(new Request("http://127.0.0.1/"));
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<form id="scan-form"/);
  const post = await handler(new Request("http://127.0.0.1/", { method: "POST", body: "{}" }));
  assert.equal(post.status, 404);
  assert.deepEqual(Object.keys(await post.json()), ["error"]);
});
