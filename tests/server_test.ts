/**
 * The local server as an operator runs it: a real process on a fresh
 * DATA_DIR, its routes, the database it owns (reached by the admin CLI and a
 * Postgres client through its socket while it runs), a second start, signals.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { FunctionsClient, FunctionsHttpError } from "@supabase/functions-js";
import { claimDataDir } from "../shared/db/data_dir_owner.ts";
import { SERVER_ARGS } from "./support/server_process.ts";
import { TextLineStream } from "./support/text_lines.ts";

const root = new URL("../", import.meta.url).pathname;

const CREATE_PRO_ACCOUNT = ["account", "create", "--plan", "pro", "--status", "active"];

interface Running {
  child: Deno.ChildProcess;
  baseUrl: string;
  altBaseUrl: string;
  socketUrl: string;
  stdout: string[];
  /** Sends a signal and waits for the process to end; returns its exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

/** Reads lines until the JSON line whose msg is `msg`; throws if the stream ends first. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  into: string[],
  msg: string,
): Promise<Record<string, string>> {
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`no "${msg}" line:\n${into.join("\n")}`);
    into.push(value);
    if (value.startsWith("{")) {
      const line = JSON.parse(value);
      if (line.msg === msg) return line;
    }
  }
}

function spawn(command: string, args: string[], env: Record<string, string>) {
  return new Deno.Command(command, {
    args,
    cwd: root,
    env: { DENO_NO_PACKAGE_JSON: "1", PORT: "0", ALT_PORT: "0", PGLITE_SOCKET_PORT: "0", ...env },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
}

async function start(
  env: Record<string, string>,
  command = Deno.execPath(),
  args = SERVER_ARGS,
): Promise<Running> {
  const child = spawn(command, args, env);
  const stdout: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  ).getReader();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stderrDrained = (async () => {
    while (!(await stderr.read()).done) { /* keep the pipe flowing */ }
  })();
  let listening: Record<string, string>;
  try {
    listening = await readUntil(reader, stdout, "listening");
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    throw error;
  }
  const drained = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout.push(value);
    }
  })();
  return {
    child,
    baseUrl: listening.url,
    altBaseUrl: listening.alt_url,
    socketUrl: listening.db_socket,
    stdout,
    async stop(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      const status = await child.status;
      await drained;
      await stderrDrained;
      return status.code;
    },
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function admin(dataDir: string, ...args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/admin.ts", "--json", ...args],
    cwd: root,
    env: { DENO_NO_PACKAGE_JSON: "1", DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: decode(output.stdout), err: decode(output.stderr) };
}

/** True when something listens on the port of `url`. */
async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  try {
    (await Deno.connect({ hostname, port: Number(port) })).close();
    return true;
  } catch {
    return false;
  }
}

async function withDataDir(fn: (dataDir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cas-server-" });
  try {
    await fn(`${dir}/pglite`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("local server: first start, the contract's routes on both listeners, the admin CLI and psql through its socket, nothing lost on restart", async () => {
  await withDataDir(async (dataDir) => {
    const first = await start({ DATA_DIR: dataDir });
    let key = "";
    let cliKey = "";
    try {
      key = first.stdout.map((line) => line.trim())
        .find((line) => /^cas_live_[A-Za-z0-9_-]{43}$/.test(line)) ?? "";
      assert.ok(key, `no key printed:\n${first.stdout.join("\n")}`);
      assert.match(first.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/functions$/);
      assert.match(first.altBaseUrl, /^http:\/\/127\.0\.0\.1:\d+\/functions$/);
      assert.notEqual(first.altBaseUrl, first.baseUrl);

      // The same routes on the main and the alternate listener.
      for (const base of [first.baseUrl, first.altBaseUrl]) {
        const response = await post(`${base}/complianceAudit`, {
          content: "I am a human, not an AI.",
          jurisdiction: "ALL",
        }, { "x-api-key": key });
        assert.equal(response.status, 200, base);
        assert.ok(["GREEN", "YELLOW", "RED"].includes((await response.json()).verdict));
      }
      // supabase-js callers: FunctionsClient on the contract's base URL.
      const functions = new FunctionsClient(first.baseUrl, { headers: { "x-api-key": key } });
      const verified = await functions.invoke("agentSubscribe", { body: { action: "verify" } });
      assert.equal(verified.error, null);
      assert.equal(verified.data.usage_count, 2);
      const refused = await new FunctionsClient(first.baseUrl).invoke("complianceAudit", {
        body: { content: "x", jurisdiction: "CA" },
      });
      assert.ok(refused.error instanceof FunctionsHttpError);
      assert.equal(refused.error.context.status, 401);
      assert.equal((await refused.error.context.json()).error.code, "invalid_api_key");

      // Supabase's /functions/v1/ and any other prefix are not served and count nothing.
      const origin = first.baseUrl.replace(/\/functions$/, "");
      for (const path of ["/functions/v1/complianceAudit", "/v1/compliance-audit"]) {
        const response = await post(`${origin}${path}`, {
          content: "x",
          jurisdiction: "CA",
        }, { "x-api-key": key });
        assert.equal(response.status, 404, path);
        assert.equal(typeof (await response.json()).error, "string");
      }
      // No allow-list: the scanner refuses a loopback target before any connection.
      const scan = await post(`${first.baseUrl}/runWebsiteAudit`, {
        target_url: "http://127.0.0.1:9/",
      });
      assert.equal(scan.status, 403);
      assert.deepEqual(Object.keys(await scan.json()), ["error"]);
      // webhookIngest is served on the alternate host too: no credential, its 401 envelope.
      const hook = await post(`${first.altBaseUrl}/webhookIngest`, { source: "x", messages: [] });
      assert.equal(hook.status, 401);
      const hookBody = await hook.json();
      assert.equal(hookBody.success, false);
      assert.equal(typeof hookBody.error, "string");

      // The admin CLI pointed at DATA_DIR goes through the server's socket.
      const account = await admin(dataDir, ...CREATE_PRO_ACCOUNT);
      assert.equal(account.code, 0, account.err);
      const accountId = JSON.parse(account.out).account_id;
      const issued = await admin(dataDir, "key", "issue", accountId);
      assert.equal(issued.code, 0, issued.err);
      cliKey = JSON.parse(issued.out).api_key;
      const seen = await post(`${first.baseUrl}/agentSubscribe`, { action: "verify" }, {
        "x-api-key": cliKey,
      });
      assert.equal(seen.status, 200);
      assert.equal((await seen.json()).plan, "pro");

      // So does any Postgres client: postgres.js (extended protocol), and psql
      // (simple protocol) where it is installed, as on CI.
      const sql = postgres(first.socketUrl, { max: 1, prepare: false, onnotice: () => {} });
      try {
        const [row] = await sql`select count(*)::int as n from public.accounts`;
        assert.equal(row.n, 2);
      } finally {
        await sql.end();
      }
      const psql = await new Deno.Command("psql", {
        args: [first.socketUrl, "-tAc", "select count(*) from public.accounts"],
        stdout: "piped",
        stderr: "piped",
        env: { PGCONNECT_TIMEOUT: "5" },
      }).output().catch(() => null);
      if (psql !== null) {
        assert.equal(psql.code, 0, new TextDecoder().decode(psql.stderr));
        assert.equal(new TextDecoder().decode(psql.stdout).trim(), "2");
      }
    } finally {
      assert.equal(await first.stop("SIGTERM"), 0);
    }
    assert.equal(await answers(first.baseUrl), false, "the port is free after SIGTERM");
    assert.equal(await answers(first.socketUrl.replace("postgres:", "http:")), false);
    const lines = first.stdout.filter((line) => line.startsWith("{"));
    assert.equal(lines.filter((line) => JSON.parse(line).msg === "no route").length, 2);
    for (const line of lines) assert.equal(line.includes(key), false);

    // Nothing written through the socket is lost across a restart.
    const second = await start({ DATA_DIR: dataDir });
    try {
      assert.equal(second.stdout.some((line) => line.includes("cas_live_")), false);
      for (const [apiKey, usage] of [[key, 2], [cliKey, 0]] as const) {
        const response = await post(`${second.baseUrl}/agentSubscribe`, { action: "verify" }, {
          "x-api-key": apiKey,
        });
        assert.equal(response.status, 200);
        assert.equal((await response.json()).usage_count, usage);
      }
    } finally {
      assert.equal(await second.stop("SIGINT"), 0);
    }
    assert.equal(await answers(second.baseUrl), false, "the port is free after SIGINT");
  });
});

Deno.test("local server: a second start on the same DATA_DIR or port says so in one line and exits non-zero", async () => {
  await withDataDir(async (dataDir) => {
    const running = await start({ DATA_DIR: dataDir });
    try {
      const port = new URL(running.baseUrl).port;
      const socketPort = new URL(running.socketUrl).port;
      const otherDir = `${dataDir}-other`;
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ DATA_DIR: dataDir }, /DATA_DIR .* is in use by the local server with pid \d+/],
        [{ DATA_DIR: otherDir, PORT: port }, /Port \d+ .*\(PORT\) is already in use/],
        [{ DATA_DIR: otherDir, ALT_PORT: port }, /Port \d+ .*\(ALT_PORT\) is already in use/],
        [
          { DATA_DIR: otherDir, PGLITE_SOCKET_PORT: socketPort },
          /Port \d+ .*\(PGLITE_SOCKET_PORT\) is already in use/,
        ],
      ];
      for (const [env, message] of cases) {
        const output = await new Deno.Command(Deno.execPath(), {
          args: SERVER_ARGS,
          cwd: root,
          env: { DENO_NO_PACKAGE_JSON: "1", PORT: "0", PGLITE_SOCKET_PORT: "0", ...env },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stderr = new TextDecoder().decode(output.stderr).trim();
        assert.notEqual(output.code, 0);
        assert.match(stderr, message);
        assert.equal(stderr.split("\n").length, 1, stderr);
        assert.equal(/^\s+at /m.test(stderr), false);
        assert.equal(new TextDecoder().decode(output.stdout).includes("cas_live_"), false);
      }
      await assert.rejects(Deno.stat(`${dataDir}-other`), Deno.errors.NotFound);
      const still = await post(`${running.baseUrl}/agentSubscribe`, { action: "verify" });
      assert.equal(still.status, 401);
      await still.body?.cancel();
    } finally {
      await running.stop();
    }
  });
});

Deno.test("admin CLI never writes beside a holder of DATA_DIR: it refuses with a clear message", async () => {
  await withDataDir(async (dataDir) => {
    // This test process holds DATA_DIR as a server whose socket answers nowhere.
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = closed.addr.port;
    closed.close();
    const held = await claimDataDir(dataDir, {
      pid: Deno.pid,
      role: "server",
      socketUrl: `postgres://postgres@127.0.0.1:${deadPort}/postgres`,
    });
    assert.ok("claim" in held);
    try {
      const refused = await admin(dataDir, ...CREATE_PRO_ACCOUNT);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /does not answer; the command changed nothing/);
      await held.claim.publish({ pid: Deno.pid, role: "admin" });
      const busy = await admin(dataDir, "rulebook", "list");
      assert.equal(busy.code, 1);
      assert.match(busy.err, /in use by another admin command/);
      await assert.rejects(Deno.stat(dataDir), Deno.errors.NotFound, "nothing was created");
    } finally {
      held.claim.release();
    }
  });
});

Deno.test("npm start stops cleanly when npm gets SIGTERM or SIGINT: no server keeps the ports", async () => {
  await withDataDir(async (dataDir) => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const running = await start({ DATA_DIR: dataDir }, "npm", ["start", "--silent"]);
      running.child.kill(signal); // npm's own pid
      await running.child.status;
      // npm may return before its child has closed: wait (bounded) for the ports to close.
      for (let i = 0; i < 100 && await answers(running.baseUrl); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await answers(running.baseUrl), false, `${signal}: HTTP port still taken`);
      assert.equal(
        await answers(running.socketUrl.replace("postgres:", "http:")),
        false,
        `${signal}: database socket still taken`,
      );
      await running.stop().catch(() => {});
    }
  });
});

Deno.test("deno task start refuses a malformed environment, naming the variable", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/server.ts"],
    cwd: root,
    env: { DENO_NO_PACKAGE_JSON: "1", PORT: "not-a-port" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 2);
  assert.match(new TextDecoder().decode(output.stderr), /PORT/);
});
