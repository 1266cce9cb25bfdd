/**
 * The local server on a networked database checks it at start: unreachable
 * (refused, black-holed) or without migrations, it refuses to start in one
 * line that names the variable to fix and never the URL's password.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { assertLoopbackUrl } from "./support/db.ts";
import { serverCommand } from "./support/server_process.ts";
import { startTcpProxy } from "./support/tcp_proxy.ts";

const PASSWORD = "pw-never-printed-5521";

async function startServer(env: Record<string, string>) {
  const output = await serverCommand({ PORT: "0", ...env }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr).trim() };
}

function assertRefused(result: { code: number; stdout: string; stderr: string }, message: RegExp) {
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, message);
  assert.equal(result.stderr.split("\n").length, 1, result.stderr);
  assert.equal(/^\s+at /m.test(result.stderr), false);
  assert.equal(`${result.stdout}${result.stderr}`.includes(PASSWORD), false);
}

Deno.test("local server refuses to start when DATABASE_URL refuses connections, naming the variable", async () => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const result = await startServer({
    DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
  });
  assertRefused(
    result,
    /^The database at DATABASE_URL is unreachable \(connection refused\): start it, or set DATABASE_URL/,
  );
});

Deno.test("local server refuses to start when the database never answers, within DB_CONNECT_TIMEOUT_MS", async () => {
  const proxy = startTcpProxy({ hostname: "127.0.0.1", port: 9 });
  proxy.pause(); // accepts, and never answers
  try {
    const result = await startServer({
      SUPABASE_DB_URL: proxy.via(`postgres://postgres:${PASSWORD}@127.0.0.1:1/postgres`),
      DB_CONNECT_TIMEOUT_MS: "500",
    });
    assertRefused(
      result,
      /^The database at SUPABASE_DB_URL is unreachable \(no answer within DB_CONNECT_TIMEOUT_MS\)/,
    );
  } finally {
    await proxy.close();
  }
});

const serverUrl = Deno.env.get("TEST_DATABASE_URL");

Deno.test({
  name: "local server refuses a database without migrations, naming the command to run",
  ignore: serverUrl === undefined,
  async fn() {
    const server = assertLoopbackUrl(serverUrl!);
    const name = `cas_test_${crypto.randomUUID().replaceAll("-", "")}`;
    const admin = postgres(server.href, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    try {
      const url = new URL(server.href);
      url.pathname = `/${name}`;
      const result = await startServer({ DATABASE_URL: url.href });
      assertRefused(result, /^The database at DATABASE_URL has no migrations applied/);
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    }
  },
});
