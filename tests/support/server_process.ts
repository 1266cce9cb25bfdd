/**
 * The local server as a separate process (scripts/server.ts) on a fresh
 * DATA_DIR, for tests that need its own memory, its own limiter or several
 * processes at once. Loopback only: PORT 0 on 127.0.0.1.
 */
import { TextLineStream } from "./text_lines.ts";

const root = new URL("../../", import.meta.url).pathname;

/** `deno run` of scripts/server.ts as the README's start task runs it. */
export const SERVER_ARGS = [
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  "scripts/server.ts",
];

/**
 * The local server as a command from the repository's root, with `env` added
 * (DENO_NO_PACKAGE_JSON set), stdout and stderr piped and no stdin.
 */
export function serverCommand(env: Record<string, string>): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: SERVER_ARGS,
    cwd: root,
    env: { DENO_NO_PACKAGE_JSON: "1", ...env },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  });
}

/** A running server process. */
export interface ServerProcess {
  pid: number;
  baseUrl: string;
  /** Every stdout line so far (the first start prints the demo key). */
  stdout: string[];
  /** The first chunks of stderr (warnings and errors). */
  stderr: string[];
  /** The demo account's API key, printed at first start. */
  apiKey: string;
  /** Resident set size of the process in bytes (Linux /proc). */
  rss(): Promise<number>;
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

/** Starts scripts/server.ts with `env` on a fresh DATA_DIR and waits for its `listening` line. */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = await Deno.makeTempDir({ prefix: "cas-server-process-" });
  const child = serverCommand({
    HOST: "127.0.0.1",
    PORT: "0",
    PGLITE_SOCKET_PORT: "0",
    DATA_DIR: `${dir}/pglite`,
    ...env,
  }).spawn();
  const stdout: string[] = [];
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  ).getReader();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stderrText: string[] = [];
  const stderrDrained = (async () => {
    while (true) {
      const { value, done } = await stderr.read();
      if (done) break;
      if (stderrText.length < 200) stderrText.push(value);
    }
  })();
  let baseUrl = "";
  while (baseUrl === "") {
    const { value, done } = await lines.read();
    if (done) {
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      throw new Error(`the server did not start:\n${stdout.join("\n")}\n${stderrText.join("")}`);
    }
    stdout.push(value);
    if (value.startsWith("{")) {
      const line = JSON.parse(value);
      if (line.msg === "listening") baseUrl = line.url;
    }
  }
  const stdoutDrained = (async () => {
    while (true) {
      const { value, done } = await lines.read();
      if (done) break;
      if (stdout.length < 10_000) stdout.push(value);
    }
  })();
  const apiKey = stdout.map((line) => line.trim()).find((line) => line.startsWith("cas_live_")) ??
    "";
  return {
    pid: child.pid,
    baseUrl,
    stdout,
    stderr: stderrText,
    apiKey,
    async rss() {
      // Through cat: Deno reads /proc only with every permission, and the
      // test task grants --allow-run, not --allow-all.
      const output = await new Deno.Command("cat", {
        args: [`/proc/${child.pid}/status`],
        stdout: "piped",
        stderr: "null",
      }).output();
      const status = new TextDecoder().decode(output.stdout);
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
      if (match === null) throw new Error("no VmRSS in /proc/<pid>/status");
      return Number(match[1]) * 1024;
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await stdoutDrained;
      await stderrDrained;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
