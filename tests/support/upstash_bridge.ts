/**
 * A small Upstash-REST-compatible HTTP server in front of a real Redis, for
 * tests of the Upstash adapter. Upstash speaks HTTP, not the Redis protocol;
 * this bridge speaks the part of its REST API that `@upstash/redis` uses:
 *
 * - `POST /` with a JSON array command body -> `{ result }`, or `{ error }`
 *   with status 400;
 * - `POST /pipeline` and `POST /multi-exec` with an array of commands -> an
 *   array of `{ result }` / `{ error }` (multi-exec runs as one MULTI/EXEC);
 * - `Authorization: Bearer <token>` is required (401 otherwise);
 * - `Upstash-Encoding: base64` (which `@upstash/redis` sends by default) makes
 *   every string in a result base64 (UTF-8) encoded, "OK" excepted, as the
 *   client's decoder expects.
 *
 * One Upstash extension is translated: `@upstash/ratelimit` scripts start with
 * `#!lua flags=allow-key-locking`, a flag that Upstash accepts and Redis 7
 * refuses ("Unexpected flag in script shebang"). The bridge drops that flag
 * from EVAL and SCRIPT LOAD, and maps the client's SHA-1 of the original
 * script to the SHA-1 of the script Redis actually holds for EVALSHA.
 *
 * It listens on 127.0.0.1 only, on an ephemeral port, and refuses a Redis URL
 * that is not a loopback address.
 */
import { createClient } from "redis";

/** A running bridge. */
export interface UpstashBridge {
  /** Base URL to give `@upstash/redis` (`http://127.0.0.1:<port>`). */
  url: string;
  /** Bearer token the bridge requires. */
  token: string;
  /** Stops the HTTP server and closes the Redis connection. */
  close(): Promise<void>;
}

type CommandArg = string | number | boolean | null;
type Outcome = { result: unknown } | { error: string };

const UPSTASH_ONLY_SCRIPT_FLAGS = new Set(["allow-key-locking"]);
const DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379";

/** Throws unless `redisUrl` is a `redis:` URL whose host is a loopback address. */
export function assertLoopbackRedisUrl(redisUrl: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(redisUrl);
  } catch {
    throw new Error("Redis URL is not a valid URL");
  }
  if (parsed.protocol !== "redis:") {
    throw new Error(`Redis URL must use redis:, got ${parsed.protocol}`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!isLoopbackHost(host)) {
    throw new Error(`refusing a non-loopback Redis host: ${host}`);
  }
  return parsed;
}

function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host === "::1") return true;
  const octets = host.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  return octets !== null && octets[1] === "127" &&
    octets.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * Starts a bridge to the Redis at `redisUrl` (loopback only). Rejects when
 * Redis cannot be reached within a few seconds.
 */
export async function startUpstashBridge(redisUrl: string): Promise<UpstashBridge> {
  assertLoopbackRedisUrl(redisUrl);
  const client = createClient({
    url: redisUrl,
    socket: { connectTimeout: 3000, reconnectStrategy: false },
  });
  let lastClientError: unknown;
  client.on("error", (error: unknown) => {
    lastClientError = error;
  });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`Upstash bridge cannot reach Redis at ${redisUrl}`, {
      cause: lastClientError ?? error,
    });
  }

  const token = randomToken();
  const expectedAuthorization = new TextEncoder().encode(`Bearer ${token}`);
  const scriptShas = new Map<string, string>(); // client's SHA-1 -> Redis's SHA-1

  const rewriteScript = async (args: string[], scriptIndex: number): Promise<string> => {
    const original = args[scriptIndex] ?? "";
    const rewritten = dropUpstashScriptFlags(original);
    const originalSha = await sha1Hex(original);
    if (rewritten !== original) {
      scriptShas.set(originalSha, await sha1Hex(rewritten));
      args[scriptIndex] = rewritten;
    }
    return originalSha;
  };

  const translate = async (command: CommandArg[]): Promise<{ args: string[]; sha?: string }> => {
    const args = command.map(toRedisArg);
    const name = (args[0] ?? "").toLowerCase();
    if (name === "eval" || name === "eval_ro") {
      await rewriteScript(args, 1);
    } else if (name === "evalsha" || name === "evalsha_ro") {
      const mapped = scriptShas.get((args[1] ?? "").toLowerCase());
      if (mapped) args[1] = mapped;
    } else if (name === "script" && (args[1] ?? "").toLowerCase() === "load") {
      return { args, sha: await rewriteScript(args, 2) };
    }
    return { args };
  };

  const run = async (command: CommandArg[]): Promise<Outcome> => {
    try {
      const { args, sha } = await translate(command);
      const result = await client.sendCommand(args);
      // SCRIPT LOAD answers the SHA-1 the client computed from what it sent.
      return { result: sha ?? result };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  };

  const runTransaction = async (commands: CommandArg[][]): Promise<Outcome[]> => {
    const multi = client.multi();
    for (const command of commands) multi.addCommand((await translate(command)).args);
    try {
      const replies = await multi.exec();
      return replies.map((result) => ({ result }));
    } catch (error) {
      if (isMultiError(error)) {
        const failed = new Set(error.errorIndexes);
        return error.replies.map((reply, index) =>
          failed.has(index) ? { error: errorMessage(reply) } : { result: reply }
        );
      }
      return commands.map(() => ({ error: errorMessage(error) }));
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    if (!authorized(request.headers.get("authorization"), expectedAuthorization)) {
      return json({ error: "Unauthorized" }, 401);
    }
    if (request.method !== "POST") return json({ error: "Method not allowed" }, 405);
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return json({ error: "ERR request body is not JSON" }, 400);
    }
    const base64 = request.headers.get("upstash-encoding")?.toLowerCase() === "base64";
    const encode = (outcome: Outcome): Outcome =>
      base64 && "result" in outcome ? { result: encodeStrings(outcome.result) } : outcome;
    const path = new URL(request.url).pathname.replace(/\/+$/, "");

    if (path === "") {
      if (!isCommand(body)) return json({ error: "ERR body must be a command array" }, 400);
      const outcome = await run(body);
      return json(encode(outcome), "error" in outcome ? 400 : 200);
    }
    if (path === "/pipeline" || path === "/multi-exec") {
      if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand)) {
        return json({ error: "ERR body must be an array of command arrays" }, 400);
      }
      const outcomes = path === "/pipeline"
        ? await Promise.all(body.map(run))
        : await runTransaction(body);
      return json(outcomes.map(encode), 200);
    }
    return json({ error: `ERR unknown path ${path}` }, 404);
  };

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handle);
  let closed = false;

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    async close() {
      if (closed) return;
      closed = true;
      await server.shutdown();
      await client.close();
    },
  };
}

/** Where the Redis-backed tests should go, or why they are skipped or failed. */
export type TestRedisTarget = { url: string } | { skip: string } | { fail: string };

/**
 * Resolves the Redis for tests: `TEST_REDIS_URL` when set. In CI (`CI` set and
 * not "false"/"0") an unset `TEST_REDIS_URL` is a failure, never a skip.
 * Elsewhere, an unset variable falls back to redis://127.0.0.1:6379 when
 * something answers there, and to a skip otherwise.
 */
export async function resolveTestRedis(): Promise<TestRedisTarget> {
  const url = Deno.env.get("TEST_REDIS_URL");
  if (url) return { url };
  const ci = Deno.env.get("CI");
  if (ci && ci !== "false" && ci !== "0") {
    return { fail: "CI is set but TEST_REDIS_URL is not: the Redis tests must run in CI" };
  }
  const target = assertLoopbackRedisUrl(DEFAULT_TEST_REDIS_URL);
  try {
    const conn = await Deno.connect({
      hostname: target.hostname,
      port: Number(target.port || 6379),
    });
    conn.close();
    return { url: DEFAULT_TEST_REDIS_URL };
  } catch {
    return {
      skip: `TEST_REDIS_URL is unset and nothing answers at ${DEFAULT_TEST_REDIS_URL}`,
    };
  }
}

function dropUpstashScriptFlags(script: string): string {
  const newline = script.indexOf("\n");
  const firstLine = newline === -1 ? script : script.slice(0, newline);
  if (!firstLine.startsWith("#!lua")) return script;
  const kept = firstLine.slice("#!lua".length).trim().split(/\s+/).filter(Boolean).map(
    (part) => {
      if (!part.startsWith("flags=")) return part;
      const flags = part.slice("flags=".length).split(",").filter((flag) =>
        flag !== "" && !UPSTASH_ONLY_SCRIPT_FLAGS.has(flag)
      );
      return flags.length > 0 ? `flags=${flags.join(",")}` : "";
    },
  ).filter(Boolean);
  const shebang = ["#!lua", ...kept].join(" ");
  return newline === -1 ? shebang : shebang + script.slice(newline);
}

function toRedisArg(arg: CommandArg): string {
  return typeof arg === "string" ? arg : JSON.stringify(arg);
}

function isCommand(value: unknown): value is CommandArg[] {
  return Array.isArray(value) && value.length > 0 &&
    value.every((arg) =>
      arg === null || typeof arg === "string" || typeof arg === "number" ||
      typeof arg === "boolean"
    );
}

function isMultiError(
  error: unknown,
): error is { replies: unknown[]; errorIndexes: number[] } {
  return typeof error === "object" && error !== null &&
    Array.isArray((error as { replies?: unknown }).replies) &&
    Array.isArray((error as { errorIndexes?: unknown }).errorIndexes);
}

function encodeStrings(value: unknown): unknown {
  if (typeof value === "string") return value === "OK" ? value : toBase64(value);
  if (Array.isArray(value)) return value.map(encodeStrings);
  return value;
}

function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function authorized(header: string | null, expected: Uint8Array): boolean {
  const given = new TextEncoder().encode(header ?? "");
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= (given[i] ?? 0) ^ expected[i];
  return difference === 0;
}

function json(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}
