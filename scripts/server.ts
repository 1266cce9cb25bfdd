/**
 * The local service: the four functions in one process, on the embedded
 * database by default, which this process owns for as long as it runs
 * (psql and the admin CLI reach it through its loopback Postgres socket).
 * Run: npm start (deno task start).
 */
import { type FirstStart, firstStart } from "../shared/admin/first_start.ts";
import type { Config } from "../shared/config.ts";
import { claimDataDir, type DataDirClaim } from "../shared/db/data_dir_owner.ts";
import type { Db } from "../shared/db/db.ts";
import { checkRemoteDb, openRemoteDb } from "../shared/db/open_db.ts";
import { createPgliteDb, openPglite } from "../shared/db/pglite_db.ts";
import {
  createSessionLock,
  type PgliteSocket,
  servePgliteSocket,
} from "../shared/db/pglite_session.ts";
import { agentSubscribe } from "../shared/handlers/agent_subscribe.ts";
import { complianceAudit } from "../shared/handlers/compliance_audit.ts";
import type { ServiceDeps } from "../shared/handlers/deps.ts";
import { runWebsiteAudit } from "../shared/handlers/run_website_audit.ts";
import { webhookIngest } from "../shared/handlers/webhook_ingest.ts";
import type { Handler } from "../shared/http/endpoint.ts";
import { functionRouter } from "../shared/http/function_router.ts";
import { createLogger, type Logger } from "../shared/log/logger.ts";
import { createBodyReadGate } from "../shared/http/body_gate.ts";
import { withLandingPage } from "./landing_page.ts";
import { serviceDeps } from "../shared/service_deps.ts";
import {
  type ConnectionGuard,
  createConnectionTable,
  guardConnections,
} from "./connection_guard.ts";
import { processConfig } from "./process_config.ts";

/** The socket's address: loopback only, since it asks for no password. */
const SOCKET_HOST = "127.0.0.1";
/** How long a request waits for the embedded database while a psql session holds it. */
const SESSION_WAIT_MS = 5000;

/** The four operations behind their routes, and the landing page at `/`. */
export function localHandler(deps: ServiceDeps): Handler {
  return withLandingPage(functionRouter({
    complianceAudit: complianceAudit(deps),
    agentSubscribe: agentSubscribe(deps),
    runWebsiteAudit: runWebsiteAudit(deps),
    webhookIngest: webhookIngest(deps),
  }, deps.logger));
}

/** The HTTP listeners of the local server. */
export interface LocalServer {
  /** Base URL ending in `/functions`. */
  baseUrl: string;
  /** The alternate host's base URL (ALT_PORT), when it listens. */
  altBaseUrl?: string;
  close(): Promise<void>;
}

/** A problem the operator can fix, said in one line; never a stack trace. */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartError";
  }
}

function baseUrlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}/functions`;
}

/** The HTTP server behind the guards: loopback, an ephemeral port. */
const BACKEND_HOST = "127.0.0.1";

function guard(
  table: ReturnType<typeof createConnectionTable>,
  config: Config,
  port: number,
  variable: string,
  backend: Deno.HttpServer<Deno.NetAddr>,
): ConnectionGuard {
  try {
    return guardConnections(table, { hostname: config.HOST, port }, {
      hostname: BACKEND_HOST,
      port: backend.addr.port,
    });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) throw portInUse(port, config.HOST, variable);
    throw error;
  }
}

/**
 * Serves the four functions on HOST:PORT and, when ALT_PORT is set, on a
 * second listener for the contract's alternate host: the same routes.
 *
 * Both listeners are connection guards (connection_guard.ts) in front of one
 * HTTP server on a loopback port: a client gets HEADERS_TIMEOUT_MS to send a
 * request's headers, an idle connection is closed after IDLE_TIMEOUT_MS, at
 * most MAX_CONNECTIONS are open, every body must arrive within
 * BODY_TIMEOUT_MS and at most MAX_BODY_READS bodies are read at once. The
 * handlers see each client's own address.
 */
export function serveLocal(config: Config, deps: ServiceDeps): LocalServer {
  const handler = localHandler({
    ...deps,
    limits: { bodyDeadlineMs: config.BODY_TIMEOUT_MS, ...deps.limits },
    bodyReads: deps.bodyReads ?? createBodyReadGate(config.MAX_BODY_READS),
  });
  const table = createConnectionTable({
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    idleTimeoutMs: config.IDLE_TIMEOUT_MS,
    maxConnections: config.MAX_CONNECTIONS,
  });
  const backend = Deno.serve(
    { hostname: BACKEND_HOST, port: 0, onListen: () => {} },
    async (req, info) => {
      const client = table.clientOf(info.remoteAddr.port);
      if (client === undefined) return await handler(req, info);
      client.requestStarted();
      try {
        return await handler(req, { remoteAddr: client.remoteAddr });
      } finally {
        client.requestEnded();
      }
    },
  );
  const guards: ConnectionGuard[] = [];
  try {
    guards.push(guard(table, config, config.PORT, "PORT", backend));
    if (config.ALT_PORT !== undefined) {
      guards.push(guard(table, config, config.ALT_PORT, "ALT_PORT", backend));
    }
  } catch (error) {
    for (const each of guards) each.close();
    backend.shutdown();
    throw error;
  }
  const [main, alt] = guards;
  return {
    baseUrl: baseUrlOf(config.HOST, main.addr.port),
    ...(alt === undefined ? {} : { altBaseUrl: baseUrlOf(config.HOST, alt.addr.port) }),
    async close() {
      for (const each of guards) each.close();
      await backend.shutdown();
    },
  };
}

/** The running local service. */
export interface LocalService {
  server: LocalServer;
  /** The embedded database's Postgres socket, with the pglite driver. */
  socketUrl?: string;
  /** What the first start of a new data directory created. */
  created: FirstStart | null;
  close(): Promise<void>;
}

/**
 * Starts the local service: with the pglite driver it claims DATA_DIR (a
 * second process is refused), opens and migrates it, prepares a first start,
 * serves it on the loopback socket PGLITE_SOCKET_PORT, then listens for HTTP.
 * Whatever was opened is closed again when a later step fails.
 */
export async function startLocalService(config: Config, logger: Logger): Promise<LocalService> {
  const cleanup: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  };
  try {
    let db: Db;
    let socket: PgliteSocket | undefined;
    let created: FirstStart | null = null;
    assertPortsFree(config);
    if (config.DB_DRIVER === "pglite") {
      const claim = await claimOrRefuse(config.DATA_DIR);
      cleanup.push(() => claim.release());
      const pg = await openPglite(config.DATA_DIR);
      cleanup.push(async () => {
        if (!pg.closed) await pg.close();
      });
      created = await firstStart(createPgliteDb(pg));
      const lock = createSessionLock();
      try {
        socket = await servePgliteSocket(pg, lock, {
          host: SOCKET_HOST,
          port: config.PGLITE_SOCKET_PORT,
        });
      } catch (error) {
        if ((error as { code?: string }).code === "EADDRINUSE") {
          throw portInUse(config.PGLITE_SOCKET_PORT, SOCKET_HOST, "PGLITE_SOCKET_PORT");
        }
        throw error;
      }
      const opened = socket;
      cleanup.push(() => opened.close());
      await claim.publish({ pid: Deno.pid, role: "server", socketUrl: socket.url });
      db = createPgliteDb(pg, { session: { lock, timeoutMs: SESSION_WAIT_MS } });
    } else {
      db = openRemoteDb(config);
      cleanup.push(() => db.close());
      const problem = await checkRemoteDb(config, db);
      if (problem !== null) throw new StartError(problem);
    }
    const server = serveLocal(config, serviceDeps(config, db, { runtime: "local-server", logger }));
    cleanup.push(() => server.close());
    return {
      server,
      ...(socket === undefined ? {} : { socketUrl: socket.url }),
      created,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * Refuses at once, before a data directory is opened or created, when a port
 * the service needs is taken. The listeners themselves still report a port
 * taken in between.
 */
function assertPortsFree(config: Config): void {
  const ports: Array<[number | undefined, string, string]> = [
    [config.PORT, config.HOST, "PORT"],
    [config.ALT_PORT, config.HOST, "ALT_PORT"],
    [
      config.DB_DRIVER === "pglite" ? config.PGLITE_SOCKET_PORT : undefined,
      SOCKET_HOST,
      "PGLITE_SOCKET_PORT",
    ],
  ];
  for (const [port, hostname, variable] of ports) {
    if (port === undefined || port === 0) continue;
    try {
      Deno.listen({ hostname, port }).close();
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse) throw portInUse(port, hostname, variable);
      throw error;
    }
  }
}

function portInUse(port: number, host: string, variable: string): StartError {
  return new StartError(
    `Port ${port} on ${host} (${variable}) is already in use, probably by another local server: stop it, or set ${variable}`,
  );
}

async function claimOrRefuse(dataDir: string): Promise<DataDirClaim> {
  const result = await claimDataDir(dataDir, { pid: Deno.pid, role: "server" });
  if ("claim" in result) return result.claim;
  const holder = result.heldBy;
  const who = holder === null
    ? "another process"
    : holder.role === "server"
    ? `the local server with pid ${holder.pid}${
      holder.socketUrl ? ` (database at ${holder.socketUrl})` : ""
    }`
    : `an admin command with pid ${holder.pid}`;
  throw new StartError(
    `DATA_DIR ${dataDir} is in use by ${who}: stop it first, or set DATA_DIR to another directory`,
  );
}

/**
 * Ends the process when its parent is gone: `npm start` runs npm, a shell,
 * deno task and this process; should a signal stop the chain above us
 * without reaching us, the server must not live on holding its ports.
 */
function exitWithParent(stop: () => void): void {
  const parent = Deno.ppid;
  const timer = setInterval(() => {
    if (Deno.ppid !== parent) {
      clearInterval(timer);
      stop();
    }
  }, 500);
  Deno.unrefTimer(timer);
}

async function main(): Promise<void> {
  const config = processConfig();
  const logger = createLogger({ level: config.LOG_LEVEL });
  let service: LocalService;
  try {
    service = await startLocalService(config, logger);
  } catch (error) {
    console.error(
      error instanceof StartError
        ? error.message
        : `The local server could not start: ${error instanceof Error ? error.message : error}`,
    );
    Deno.exit(1);
  }
  if (service.created !== null) {
    const created = service.created;
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
  logger.log("info", "listening", {
    url: service.server.baseUrl,
    alt_url: service.server.altBaseUrl,
    db_driver: config.DB_DRIVER,
    db_socket: service.socketUrl,
  });
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.log("info", "stopping", { reason });
    service.close().then(() => Deno.exit(0), () => Deno.exit(1));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    Deno.addSignalListener(signal, () => stop(signal));
  }
  exitWithParent(() => stop("parent process ended"));
}

if (import.meta.main) await main();
