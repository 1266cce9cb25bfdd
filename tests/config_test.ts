import assert from "node:assert/strict";
import { ConfigError, EnvSchema, loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/log/logger.ts";
import { serviceDeps } from "../shared/service_deps.ts";
import { fakeDb } from "./support/fake_deps.ts";

Deno.test("loadConfig() defaults to the embedded database on port 54321", () => {
  const config = loadConfig({});
  assert.equal(config.DB_DRIVER, "pglite");
  assert.equal(config.PORT, 54321);
  assert.equal(config.HOST, "127.0.0.1");
  assert.equal(config.DATA_DIR, ".data/pglite");
  assert.equal(config.TRUSTED_PROXY_HOPS, 0);
  assert.deepEqual(config.CORS_ALLOWED_ORIGINS, ["*"]);
  assert.deepEqual(config.SCAN_ALLOWED_TARGETS, []);
  assert.deepEqual(config.SCAN_ALLOWED_PORTS, [80, 443]);
  assert.equal(config.LOG_LEVEL, "info");
  assert.equal(config.PGLITE_SOCKET_PORT, 54322);
  assert.equal(config.ALT_PORT, undefined);
});

Deno.test("loadConfig() picks the driver from what is set", () => {
  assert.equal(
    loadConfig({ DATABASE_URL: "postgres://u@127.0.0.1:5432/db" }).DB_DRIVER,
    "postgres",
  );
  assert.equal(
    loadConfig({
      DATABASE_URL: "postgres://u@127.0.0.1:5432/db",
      SUPABASE_URL: "http://127.0.0.1:54321",
      SUPABASE_SERVICE_ROLE_KEY: "service-role",
    }).DB_DRIVER,
    "supabase",
  );
  assert.equal(
    loadConfig({ DB_DRIVER: "pglite", DATABASE_URL: "postgres://127.0.0.1/x" }).DB_DRIVER,
    "pglite",
  );
  assert.equal(loadConfig({ PORT: "" }).PORT, 54321);
  // SUPABASE_DB_URL alone selects the postgres driver, as DATABASE_URL does.
  assert.equal(
    loadConfig({ SUPABASE_DB_URL: "postgres://u@127.0.0.1:5432/db" }).DB_DRIVER,
    "postgres",
  );
});

Deno.test("loadConfig() refuses malformed values, naming the variable and never the value", () => {
  const cases: Record<string, string>[] = [
    { PORT: "http" },
    { PORT: "70000" },
    { ALT_PORT: "-1" },
    { PGLITE_SOCKET_PORT: "socket" },
    { DB_DRIVER: "mysql" },
    { DATABASE_URL: "mysql://secret-password@127.0.0.1/x" },
    { DB_DRIVER: "postgres" },
    { DB_DRIVER: "supabase" },
    { UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079" },
    { TRUSTED_PROXY_HOPS: "-1" },
    { SCAN_ALLOWED_TARGETS: "localhost:8080" },
    { SCAN_ALLOWED_TARGETS: "127.0.0.1:8080,127.1" },
    { SCAN_ALLOWED_TARGETS: "0.0.0.0" },
    { SCAN_ALLOWED_TARGETS: "2130706433:80" },
    { SCAN_ALLOWED_PORTS: "80,http" },
    { SCAN_ALLOWED_PORTS: "70000" },
    { ADVISORY_LLM_URL: "http://127.0.0.1:8080/v1/chat/completions" },
    { ADVISORY_LLM_API_KEY: "sk-secret-advisory-key" },
    { LOG_LEVEL: "loud" },
    { WEBHOOK_SHARED_ACCOUNT_ID: "acct" },
    { WEBHOOK_SHARED_SECRET: "too-short" },
    { TRANSCRIPT_RETENTION_DAYS: "0" },
  ];
  for (const env of cases) {
    const [name, value] = Object.entries(env)[0];
    assert.throws(() => loadConfig(env), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.ok(
        error.message.includes(name) ||
          (name === "DB_DRIVER" && /DATABASE_URL|SUPABASE_URL/.test(error.message)) ||
          (name === "UPSTASH_REDIS_REST_URL" &&
            error.message.includes("UPSTASH_REDIS_REST_TOKEN")) ||
          (name === "ADVISORY_LLM_URL" && error.message.includes("ADVISORY_LLM_MODEL")) ||
          (name === "ADVISORY_LLM_API_KEY" && error.message.includes("ADVISORY_LLM_URL")),
        error.message,
      );
      assert.equal(error.message.includes("secret-password"), false);
      assert.equal(value !== "" && value.length > 8 && error.message.includes(value), false);
      return true;
    });
  }
});

Deno.test("loadConfig() reads SCAN_ALLOWED_TARGETS as exact IP literals or IP:port pairs", () => {
  const config = loadConfig({
    SCAN_ALLOWED_TARGETS: " 127.0.0.1 , 127.0.0.1:8080,[::1]:9000 ,",
    SCAN_ALLOWED_PORTS: "80, 8443",
  });
  assert.deepEqual(config.SCAN_ALLOWED_TARGETS, [
    { address: "127.0.0.1" },
    { address: "127.0.0.1", port: 8080 },
    { address: "::1", port: 9000 },
  ]);
  assert.deepEqual(config.SCAN_ALLOWED_PORTS, [80, 8443]);
  // The message names the entry by position, never by value.
  assert.throws(
    () => loadConfig({ SCAN_ALLOWED_TARGETS: "127.0.0.1,internal.corp:80" }),
    /SCAN_ALLOWED_TARGETS Allowed target 2 is not an IP address or IP:port/,
  );
});

Deno.test("loadConfig() takes the advisory endpoint with its model; the key alone is refused", () => {
  const config = loadConfig({
    ADVISORY_LLM_URL: "http://127.0.0.1:8080/v1/chat/completions",
    ADVISORY_LLM_MODEL: "small-model",
    ADVISORY_LLM_API_KEY: "sk-test",
  });
  assert.equal(config.ADVISORY_LLM_MODEL, "small-model");
  assert.equal(loadConfig({}).ADVISORY_LLM_URL, undefined);
});

Deno.test("every configuration variable is documented in the README", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const names = Object.keys(
    EnvSchema.shape ??
      (EnvSchema as unknown as { _def: { schema: { shape: object } } })._def.schema.shape,
  );
  assert.ok(names.length >= 20);
  for (const name of names) assert.ok(readme.includes(`\`${name}\``), `README lacks ${name}`);
});

Deno.test("loadConfig() opens the shared-secret path only with its account and integration, and the secret closes it", () => {
  const secret = "a-deployment-issued-secret-0001";
  const account = "3f0c8c5e-8f4e-4e5b-9a51-0d7f8f1b2c3d";
  const depsOf = (env: Record<string, string>) =>
    serviceDeps(loadConfig(env), fakeDb(), {
      runtime: "function",
      logger: createLogger({ write: () => {} }),
    });
  for (const missing of ["WEBHOOK_SHARED_ACCOUNT_ID", "WEBHOOK_SHARED_INTEGRATION"]) {
    const env: Record<string, string> = {
      WEBHOOK_SHARED_SECRET: secret,
      WEBHOOK_SHARED_ACCOUNT_ID: account,
      WEBHOOK_SHARED_INTEGRATION: "legacy",
    };
    delete env[missing];
    assert.throws(() => loadConfig(env), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, new RegExp(missing));
      assert.equal(error.message.includes(secret), false);
      return true;
    });
  }
  assert.deepEqual(
    depsOf({
      WEBHOOK_SHARED_SECRET: ` ${secret} `,
      WEBHOOK_SHARED_ACCOUNT_ID: account,
      WEBHOOK_SHARED_INTEGRATION: "legacy",
    }).webhookShared,
    { secret, accountId: account, integrationName: "legacy" },
  );
  // Unsetting the secret alone retires the path, whatever else is still set.
  assert.equal(
    depsOf({ WEBHOOK_SHARED_ACCOUNT_ID: account, WEBHOOK_SHARED_INTEGRATION: "legacy" })
      .webhookShared,
    undefined,
  );
  assert.equal(loadConfig({}).TRANSCRIPT_RETENTION_DAYS, 365);
  assert.equal(loadConfig({ TRANSCRIPT_RETENTION_DAYS: "90" }).TRANSCRIPT_RETENTION_DAYS, 90);
});
