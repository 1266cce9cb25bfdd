/**
 * The landing page (`web/`) on the local server: `GET /` is `web/index.html`
 * and `GET /<file>` each other file directly in `web/` (its stylesheet and
 * script). Only those names, read when the server starts, are served, and
 * only for GET and HEAD; every other request goes to the API's router, which
 * answers a path it does not serve with its 404 `{ error }`. The page is
 * plain files, so any static host serves it the same way.
 */
import type { Handler } from "../shared/http/endpoint.ts";

/** The directory of the page, beside `scripts/`. */
export const WEB_DIR = new URL("../web/", import.meta.url);

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
};

/**
 * Sent with every file. The page's own `<meta>` policy says the same for a
 * static host that sends no header; a header can also forbid framing. Scans
 * go to the same origin or to an https API (`api-base-url`).
 */
export const LANDING_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The files of `dir` that may be served, by URL path; empty when it does not exist. */
function servedFiles(dir: URL): Map<string, { file: URL; type: string }> {
  const files = new Map<string, { file: URL; type: string }>();
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return files;
    throw error;
  }
  for (const entry of entries) {
    const match = /^[a-z0-9][a-z0-9_.-]*\.([a-z0-9]+)$/.exec(entry.name);
    const type = match === null ? undefined : CONTENT_TYPES[match[1]];
    if (!entry.isFile || type === undefined) continue;
    files.set(`/${entry.name}`, { file: new URL(entry.name, dir), type });
  }
  const index = files.get("/index.html");
  if (index !== undefined) files.set("/", index);
  return files;
}

/** `api`, with the landing page's files in front of it for GET and HEAD. */
export function withLandingPage(api: Handler, dir: URL = WEB_DIR): Handler {
  const files = servedFiles(dir);
  return async (req, info) => {
    if (req.method !== "GET" && req.method !== "HEAD") return api(req, info);
    const served = files.get(new URL(req.url).pathname);
    if (served === undefined) return api(req, info);
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await Deno.readFile(served.file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return api(req, info);
      throw error;
    }
    return new Response(req.method === "HEAD" ? null : body, {
      headers: {
        ...LANDING_PAGE_HEADERS,
        "content-type": served.type,
        "content-length": String(body.byteLength),
      },
    });
  };
}
