/**
 * The local server as a newcomer runs it (deno task start): one process, the
 * embedded database on a fresh DATA_DIR, the first-start demo key, the routes.
 */
import assert from "node:assert/strict";
import { TextLineStream } from "./support/text_lines.ts";

const root = new URL("../", import.meta.url).pathname;

interface Running {
  baseUrl: string;
  stdout: string[];
  stop(): Promise<void>;
}

async function start(dataDir: string): Promise<Running> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "scripts/server.ts",
    ],
    cwd: root,
    env: {
      DENO_NO_PACKAGE_JSON: "1",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream());
  const reader = lines.getReader();
  let baseUrl = "";
  const deadline = Date.now() + 60_000;
  while (baseUrl === "" && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout.push(value);
    if (value.startsWith("{")) {
      const line = JSON.parse(value);
      if (line.msg === "listening") baseUrl = line.url;
    }
  }
  const drained = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout.push(value);
    }
  })();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stderrDrained = (async () => {
    while (!(await stderr.read()).done) { /* keep the pipe flowing */ }
  })();
  if (baseUrl === "") {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`server did not start:\n${stdout.join("\n")}`);
  }
  return {
    baseUrl,
    stdout,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      await stderrDrained;
    },
  };
}

Deno.test("deno task start: first start migrates, seeds and prints a working demo key once", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cas-server-" });
  try {
    const first = await start(`${dataDir}/pglite`);
    let key = "";
    try {
      key = first.stdout.map((line) =>
        line.trim()
      ).find((line) => /^cas_live_[A-Za-z0-9_-]{43}$/.test(line)) ?? "";
      assert.ok(key, `no key printed:\n${first.stdout.join("\n")}`);
      assert.match(first.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/functions$/);

      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${first.baseUrl.replace(/\/functions$/, "")}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        });
      for (const path of ["/functions/complianceAudit", "/functions/v1/complianceAudit"]) {
        const response = await post(path, {
          content: "I am a human, not an AI.",
          jurisdiction: "ALL",
        }, {
          "x-api-key": key,
        });
        assert.equal(response.status, 200, path);
        const body = await response.json();
        assert.ok(["GREEN", "YELLOW", "RED"].includes(body.verdict));
      }
      const elsewhere = await post("/v1/compliance-audit", {});
      assert.equal(elsewhere.status, 404);
      assert.deepEqual(await elsewhere.json(), { error: "Not found" });

      const scan = await post("/functions/runWebsiteAudit", { target_url: "http://127.0.0.1:9/" });
      assert.equal(scan.status, 501);
      assert.equal(typeof (await scan.json()).error, "string");
      const hook = await post("/functions/webhookIngest", { source: "x", messages: [] });
      assert.equal(hook.status, 501);
      const hookBody = await hook.json();
      assert.equal(hookBody.success, false);
      assert.equal(typeof hookBody.processing_ms, "number");
    } finally {
      await first.stop();
    }
    // Every line is in once the process has ended.
    const logLines = first.stdout.filter((line) => line.startsWith("{")).map((line) =>
      JSON.parse(line)
    );
    const requests = logLines.filter((line) => line.msg === "request");
    assert.equal(requests.length, 4); // two audits and the two 501s; the 404 belongs to no operation
    for (const line of first.stdout.filter((l) => l.startsWith("{"))) {
      assert.equal(line.includes(key), false);
    }

    const second = await start(`${dataDir}/pglite`);
    try {
      assert.equal(
        second.stdout.some((line) => line.includes("cas_live_")),
        false,
        "the key is printed only once",
      );
      const response = await fetch(`${second.baseUrl}/agentSubscribe`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ action: "verify" }),
      });
      assert.equal(response.status, 200);
      assert.equal((await response.json()).usage_count, 2);
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
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
