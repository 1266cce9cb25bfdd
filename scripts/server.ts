/**
 * The local service: the four functions in one process, on the embedded
 * database by default. Run: npm start (deno task start).
 */
import { firstStart } from "../shared/admin/first_start.ts";
import type { Config } from "../shared/config.ts";
import type { Db } from "../shared/db/db.ts";
import { openDb } from "../shared/db/open_db.ts";
import { agentSubscribe } from "../shared/handlers/agent_subscribe.ts";
import { complianceAudit } from "../shared/handlers/compliance_audit.ts";
import type { ServiceDeps } from "../shared/handlers/deps.ts";
import { runWebsiteAudit } from "../shared/handlers/run_website_audit.ts";
import { webhookIngest } from "../shared/handlers/webhook_ingest.ts";
import { functionRouter } from "../shared/http/function_router.ts";
import type { Handler } from "../shared/http/endpoint.ts";
import { createLogger } from "../shared/log/logger.ts";
import { serviceDeps } from "../shared/service_deps.ts";
import { processConfig } from "./process_config.ts";

/** The four operations behind their routes. */
export function localHandler(deps: ServiceDeps): Handler {
  return functionRouter({
    complianceAudit: complianceAudit(deps),
    agentSubscribe: agentSubscribe(deps),
    runWebsiteAudit: runWebsiteAudit(deps),
    webhookIngest: webhookIngest(deps),
  });
}

/** A running local server. */
export interface LocalServer {
  /** Base URL ending in `/functions`. */
  baseUrl: string;
  port: number;
  db: Db;
  close(): Promise<void>;
}

/** Starts the local server for a configuration on an opened database. */
export function serveLocal(
  config: Config,
  db: Db,
  deps: ServiceDeps = serviceDeps(config, db, { runtime: "local-server" }),
): LocalServer {
  const server = Deno.serve({
    hostname: config.HOST,
    port: config.PORT,
    onListen: () => {},
  }, localHandler(deps));
  const port = server.addr.port;
  return {
    baseUrl: `http://${
      config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST
    }:${port}/functions`,
    port,
    db,
    async close() {
      await server.shutdown();
      await db.close();
    },
  };
}

async function main(): Promise<void> {
  const config = processConfig();
  const logger = createLogger({ level: config.LOG_LEVEL });
  const db = await openDb(config);
  if (config.DB_DRIVER === "pglite") {
    const created = await firstStart(db);
    if (created !== null) {
      // Printed once, to the operator's terminal; never written to a log.
      console.log(
        [
          "",
          `First start: migrated ${config.DATA_DIR}, activated seed rulebook v${created.rulebookVersion}.`,
          `Demo account ${created.accountId} (starter, active). Its API key, shown only now:`,
          "",
          `  ${created.apiKey}`,
          "",
        ].join("\n"),
      );
    }
  }
  const server = serveLocal(
    config,
    db,
    serviceDeps(config, db, { runtime: "local-server", logger }),
  );
  logger.log("info", "listening", { url: server.baseUrl, db_driver: config.DB_DRIVER });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      server.close().finally(() => Deno.exit(0));
    });
  }
}

if (import.meta.main) await main();
