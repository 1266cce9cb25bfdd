/**
 * A small website for scanner tests, served on a loopback address and an
 * ephemeral port (127.0.0.1 or ::1, never anything else). Each test starts
 * its own site, so behaviour such as its robots.txt is a per-site option,
 * never global state.
 *
 * Routes (see FIXTURE_PATHS):
 * - `/robots.txt`: per the `robots` option (RobotsVariant); `redirect` sends
 *   it to `/robots-target.txt`, which disallows `/private/`;
 * - `/`, `/page.html`: a plain page; `/private/page.html` (disallowed by the
 *   `disallow-private` robots); `/chat-disclosed.html` and
 *   `/chat-undisclosed.html`: a chat widget with and without an AI disclosure;
 *   `/script-only.html`: `<div id=root>` and a script, no readable content;
 * - `/redirect/same-site` -> `/page.html`; `/redirect/chain/N` -> N redirects
 *   then the page; `/redirect/internal` -> `http://internal.test/page.html`;
 *   `/redirect/to?location=X` -> X;
 * - `/slow/headers`: stalls `slowMs` before answering; `/slow/body`: headers at
 *   once, then the body dribbled over 2 x `slowMs`;
 * - `/large.html` (3 MiB, Content-Length), `/large-chunked.html` (3 MiB,
 *   chunked), `/gzip.html` (gzip), `/gzip-bomb.html` (8 MiB of HTML in a small
 *   gzip stream);
 * - `/doc.pdf` (application/pdf), `/error` (500), `/not-found` (404),
 *   `/no-content-type`, `/page.xhtml` (application/xhtml+xml),
 *   `/latin1.html` (charset in the header), `/meta-charset.html` (charset in
 *   a meta tag);
 * - whatever the `pages` option adds: a test's own HTML pages (or any
 *   status and content type), served before the routes above.
 *
 * @example
 * ```ts
 * await using site = await startFixtureSite({ robots: "disallow-private" });
 * const response = await fetch(site.url("/page.html"));
 * ```
 */

/** What `/robots.txt` answers. */
export type RobotsVariant =
  | "allow-all"
  | "disallow-private"
  | "disallow-all"
  | "disallow-bot"
  | "missing"
  | "forbidden"
  | "server-error"
  | "slow"
  | "redirect"
  | "redirect-loop"
  | { status: number; body: string; location?: string };

/** Options of {@linkcode startFixtureSite}. */
export interface FixtureSiteOptions {
  /** The loopback address to listen on; default 127.0.0.1. */
  hostname?: "127.0.0.1" | "::1";
  /** Default "allow-all". */
  robots?: RobotsVariant;
  /** How long the slow routes stall; default 2000 ms. */
  slowMs?: number;
  /** Serve HTTPS with this certificate chain and key (PEM). */
  tls?: { cert: string; key: string };
  /** Extra routes by path: HTML as a string, or a full answer. */
  pages?: Record<string, string | FixtureAnswer>;
}

/** One extra route's answer. */
export interface FixtureAnswer {
  body: string;
  /** Default 200. */
  status?: number;
  /** Default `text/html; charset=utf-8`. */
  contentType?: string;
  /** E.g. `location` for a redirect. */
  headers?: Record<string, string>;
}

/** A request the site received. */
export interface FixtureRequest {
  path: string;
  host: string | null;
  userAgent: string | null;
}

/** A running fixture site. */
export interface FixtureSite extends AsyncDisposable {
  hostname: string;
  port: number;
  /** e.g. `http://127.0.0.1:40123` or `https://[::1]:40123` */
  origin: string;
  /** `origin` + `path`. */
  url(path: string): string;
  /** Every request received, in order. */
  requests: FixtureRequest[];
  close(): Promise<void>;
}

/** The site's paths, for tests that want names rather than strings. */
export const FIXTURE_PATHS = {
  page: "/page.html",
  privatePage: "/private/page.html",
  chatDisclosed: "/chat-disclosed.html",
  chatUndisclosed: "/chat-undisclosed.html",
  scriptOnly: "/script-only.html",
  sameSiteRedirect: "/redirect/same-site",
  redirectChain: (hops: number) => `/redirect/chain/${hops}`,
  internalRedirect: "/redirect/internal",
  redirectTo: (location: string) => `/redirect/to?location=${encodeURIComponent(location)}`,
  slowHeaders: "/slow/headers",
  slowBody: "/slow/body",
  large: "/large.html",
  largeChunked: "/large-chunked.html",
  gzip: "/gzip.html",
  gzipBomb: "/gzip-bomb.html",
  pdf: "/doc.pdf",
  serverError: "/error",
  notFound: "/not-found",
  noContentType: "/no-content-type",
  xhtml: "/page.xhtml",
  latin1: "/latin1.html",
  metaCharset: "/meta-charset.html",
} as const;

/** The size of `/large.html` and `/large-chunked.html`. */
export const LARGE_PAGE_BYTES = 3 * 1024 * 1024;

const HTML = "text/html; charset=utf-8";

/** The plain page's text, for assertions. */
export const PAGE_TEXT = "Welcome to the fixture shop. We sell handmade chairs.";

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

const PAGES: Record<string, string> = {
  "/": page("Fixture shop", `<h1>Fixture shop</h1><p>${PAGE_TEXT}</p>`),
  "/page.html": page("Fixture shop", `<h1>Fixture shop</h1><p>${PAGE_TEXT}</p>`),
  "/private/page.html": page("Private", "<p>Staff only.</p>"),
  "/chat-disclosed.html": page(
    "Support",
    `<p>Need help?</p><div id="chat-widget"><p class="disclosure">You are chatting with an AI assistant, not a human.</p><button>Chat with us</button></div><script src="/chat.js"></script>`,
  ),
  "/chat-undisclosed.html": page(
    "Support",
    `<p>Need help?</p><div id="chat-widget"><p>Hi, I'm Sam. How can I help you today?</p><button>Chat with us</button></div><script src="/chat.js"></script>`,
  ),
  "/script-only.html":
    `<!doctype html><html><head><title></title></head><body><div id=root></div><script src=app.js></script></body></html>`,
};

const ROBOTS: Record<string, string> = {
  "allow-all": "User-agent: *\nAllow: /\n",
  "disallow-private": "User-agent: *\nDisallow: /private/\n",
  "disallow-all": "User-agent: *\nDisallow: /\n",
  "disallow-bot":
    "User-agent: *\nAllow: /\n\nUser-agent: ComplianceAuditBot\nDisallow: /\nAllow: /private/\n",
};

/** Starts a fixture site on a loopback address and an ephemeral port. */
export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const hostname = options.hostname ?? "127.0.0.1";
  const slowMs = options.slowMs ?? 2000;
  const robots = options.robots ?? "allow-all";
  const requests: FixtureRequest[] = [];
  const stalls = new Stalls();
  const gzipPage = await gzip(new TextEncoder().encode(PAGES["/page.html"]));
  const gzipBomb = await gzip(
    new TextEncoder().encode(`<!doctype html><p>${"a".repeat(8 * 1024 * 1024)}</p>`),
  );
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    requests.push({
      path: url.pathname + url.search,
      host: req.headers.get("host"),
      userAgent: req.headers.get("user-agent"),
    });
    const path = url.pathname;
    const extra = options.pages?.[path];
    if (extra !== undefined) return extraPage(extra);
    if (path === "/robots.txt") return await robotsResponse(robots, () => stalls.wait(slowMs));
    if (path === "/robots-target.txt") return text(ROBOTS["disallow-private"], "text/plain");
    if (PAGES[path] !== undefined) return text(PAGES[path], HTML);
    if (path === "/redirect/same-site") return redirect("/page.html");
    const chain = /^\/redirect\/chain\/(\d+)$/.exec(path);
    if (chain !== null) {
      const left = Number(chain[1]);
      return left === 0 ? text(PAGES["/page.html"], HTML) : redirect(`/redirect/chain/${left - 1}`);
    }
    if (path === "/redirect/internal") return redirect("http://internal.test/page.html");
    if (path === "/redirect/to") return redirect(url.searchParams.get("location") ?? "/");
    if (path === "/slow/headers") {
      await stalls.wait(slowMs);
      return text(PAGES["/page.html"], HTML);
    }
    if (path === "/slow/body") return dribble(PAGES["/page.html"], slowMs);
    if (path === "/large.html") {
      return new Response(largeHtml(), {
        headers: { "content-type": HTML, "content-length": String(LARGE_PAGE_BYTES) },
      });
    }
    if (path === "/large-chunked.html") {
      return new Response(ReadableStream.from(largeChunks()), {
        headers: { "content-type": HTML },
      });
    }
    if (path === "/gzip.html") return gzipped(gzipPage);
    if (path === "/gzip-bomb.html") return gzipped(gzipBomb);
    if (path === "/doc.pdf") {
      return new Response(new TextEncoder().encode("%PDF-1.4\n%fixture\n"), {
        headers: { "content-type": "application/pdf" },
      });
    }
    if (path === "/error") {
      return new Response(page("Error", "<p>Internal error</p>"), {
        status: 500,
        headers: { "content-type": HTML },
      });
    }
    if (path === "/page.xhtml") {
      return text(
        `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>${PAGE_TEXT}</p></body></html>`,
        "application/xhtml+xml",
      );
    }
    if (path === "/no-content-type") return new Response(new TextEncoder().encode(PAGE_TEXT));
    if (path === "/latin1.html") {
      return new Response(latin1Bytes(page("Caf\u00e9", "<p>Caf\u00e9 cr\u00e8me</p>")), {
        headers: { "content-type": "text/html; charset=iso-8859-1" },
      });
    }
    if (path === "/meta-charset.html") {
      return new Response(
        latin1Bytes(
          `<!doctype html><html><head><meta charset="windows-1252"><title>Na\u00efve</title></head><body><p>Na\u00efve</p></body></html>`,
        ),
        { headers: { "content-type": "text/html" } },
      );
    }
    return new Response(page("Not found", "<p>Not found</p>"), {
      status: 404,
      headers: { "content-type": HTML },
    });
  };
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname,
    port: 0,
    onListen: () => listening.resolve(),
    ...(options.tls ?? {}),
  }, handler);
  await listening.promise;
  const port = server.addr.port;
  const origin = `${options.tls ? "https" : "http"}://${
    hostname.includes(":") ? `[${hostname}]` : hostname
  }:${port}`;
  const close = () => {
    stalls.endAll();
    return server.shutdown();
  };
  return {
    hostname,
    port,
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function robotsResponse(
  variant: RobotsVariant,
  stall: () => Promise<void>,
): Promise<Response> {
  if (typeof variant === "object") {
    const headers: Record<string, string> = { "content-type": "text/plain" };
    if (variant.location !== undefined) headers.location = variant.location;
    return new Response(variant.body, { status: variant.status, headers });
  }
  switch (variant) {
    case "missing":
      return new Response("Not found", { status: 404 });
    case "forbidden":
      return new Response("Forbidden", { status: 403 });
    case "server-error":
      return new Response("Unavailable", { status: 503 });
    case "slow":
      await stall();
      return text(ROBOTS["allow-all"], "text/plain");
    case "redirect":
      return redirect("/robots-target.txt");
    case "redirect-loop":
      return redirect("/robots.txt");
    default:
      return text(ROBOTS[variant], "text/plain");
  }
}

function extraPage(answer: string | FixtureAnswer): Response {
  const { body, status = 200, contentType = HTML, headers = {} } = typeof answer === "string"
    ? { body: answer }
    : answer;
  return new Response(status === 204 || status === 304 ? null : body, {
    status,
    headers: { "content-type": contentType, ...headers },
  });
}

function text(body: string, contentType: string): Response {
  return new Response(body, { headers: { "content-type": contentType } });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

function gzipped(body: Uint8Array<ArrayBuffer>): Response {
  return new Response(body, { headers: { "content-type": HTML, "content-encoding": "gzip" } });
}

/** Waits that the site ends all at once when it closes, so shutting down never waits on a stall. */
class Stalls {
  readonly #pending = new Set<() => void>();

  /** Resolves after `ms`, or when the site closes. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#pending.add(done);
    });
  }

  endAll(): void {
    for (const done of [...this.#pending]) done();
  }
}

/** The body in ten pieces spread over 2 x `slowMs`; stops when the client goes away. */
function dribble(body: string, slowMs: number): Response {
  const bytes = new TextEncoder().encode(body);
  const step = Math.ceil(bytes.byteLength / 10);
  let offset = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(bytes.slice(offset, offset + step));
          offset += step;
          resolve();
        }, slowMs / 5);
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(stream, { headers: { "content-type": HTML } });
}

function largeHtml(): Uint8Array<ArrayBuffer> {
  const head = "<!doctype html><html><body><p>";
  const tail = "</p></body></html>";
  return new TextEncoder().encode(
    head + "x".repeat(LARGE_PAGE_BYTES - head.length - tail.length) + tail,
  );
}

function* largeChunks(): Generator<Uint8Array> {
  const whole = largeHtml();
  for (let offset = 0; offset < whole.byteLength; offset += 64 * 1024) {
    yield whole.slice(offset, offset + 64 * 1024);
  }
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const stream = ReadableStream.from([bytes]).pipeThrough(
    new CompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function latin1Bytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}
