import { z } from "zod";
import { LOG_LEVELS } from "./log/logger.ts";
import { DEFAULT_DB_CONNECT_TIMEOUT_MS, DEFAULT_DB_STATEMENT_TIMEOUT_MS } from "./db/deadlines.ts";
import { parseAllowedTargets } from "./scanner/allowed_targets.ts";

const optionalText = z.string().trim().min(1).optional();

/** A comma-separated list, entries trimmed, empty entries dropped. */
const commaList = (fallback: string) =>
  z.string().trim().default(fallback).transform((value) =>
    value.split(",").map((part) => part.trim()).filter((part) => part !== "")
  );
/** Days a stored transcript is kept before `admin transcript purge` deletes it, by default. */
export const DEFAULT_TRANSCRIPT_RETENTION_DAYS = 365;

const urlWith = (protocols: readonly string[]) =>
  z.string().trim().refine((value) => {
    if (!URL.canParse(value)) return false;
    return protocols.includes(new URL(value).protocol);
  }, `must be a URL with scheme ${protocols.join(" or ")}`);

/**
 * The environment the service reads, parsed once at start (design.md's
 * configuration table). Empty values count as unset.
 */
export const EnvSchema = z.object({
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(54321),
  ALT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PGLITE_SOCKET_PORT: z.coerce.number().int().min(0).max(65535).default(54322),
  DATA_DIR: z.string().trim().min(1).default(".data/pglite"),
  DB_DRIVER: z.enum(["pglite", "postgres", "supabase"]).optional(),
  DATABASE_URL: urlWith(["postgres:", "postgresql:"]).optional(),
  SUPABASE_DB_URL: urlWith(["postgres:", "postgresql:"]).optional(),
  SUPABASE_URL: urlWith(["http:", "https:"]).optional(),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(
    DEFAULT_DB_CONNECT_TIMEOUT_MS,
  ),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(
    DEFAULT_DB_STATEMENT_TIMEOUT_MS,
  ),
  SUPABASE_SERVICE_ROLE_KEY: optionalText,
  UPSTASH_REDIS_REST_URL: urlWith(["http:", "https:"]).optional(),
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  UPSTASH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  SCAN_ALLOWED_TARGETS: commaList("").transform((entries, ctx) => {
    try {
      return parseAllowedTargets(entries);
    } catch (error) {
      // The message names the entry by position, never its value.
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  SCAN_ALLOWED_PORTS: commaList("80,443").pipe(
    z.array(
      z.string().regex(/^\d{1,5}$/, "must be port numbers").transform(Number).pipe(
        z.number().int().min(1).max(65535),
      ),
    ).min(1, "must name at least one port"),
  ),
  CORS_ALLOWED_ORIGINS: commaList("*"),
  WEBHOOK_SHARED_SECRET: z.string().trim().min(16, "must be at least 16 characters").optional(),
  WEBHOOK_SHARED_ACCOUNT_ID: z.uuid().optional(),
  WEBHOOK_SHARED_INTEGRATION: z.string().trim().min(1).max(100).optional(),
  TRANSCRIPT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(
    DEFAULT_TRANSCRIPT_RETENTION_DAYS,
  ),
  ADVISORY_LLM_URL: urlWith(["http:", "https:"]).optional(),
  ADVISORY_LLM_API_KEY: optionalText,
  ADVISORY_LLM_MODEL: optionalText,
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  // The local server's bounds on its clients (scripts/connection_guard.ts, read_body.ts).
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(1024),
  MAX_BODY_READS: z.coerce.number().int().min(1).max(10_000).default(64),
}).superRefine((env, ctx) => {
  // The shared-secret path is open only with all three; unsetting the secret
  // alone closes it (the last step of the rollout), whatever else is set.
  if (env.WEBHOOK_SHARED_SECRET !== undefined) {
    for (const name of ["WEBHOOK_SHARED_ACCOUNT_ID", "WEBHOOK_SHARED_INTEGRATION"] as const) {
      if (env[name] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "is required when WEBHOOK_SHARED_SECRET is set",
        });
      }
    }
  }
  if ((env.UPSTASH_REDIS_REST_URL === undefined) !== (env.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["UPSTASH_REDIS_REST_TOKEN"],
      message: "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together",
    });
  }
  if (env.ADVISORY_LLM_URL !== undefined && env.ADVISORY_LLM_MODEL === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["ADVISORY_LLM_MODEL"],
      message: "is required when ADVISORY_LLM_URL is set",
    });
  }
  if (env.ADVISORY_LLM_URL === undefined && env.ADVISORY_LLM_API_KEY !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["ADVISORY_LLM_URL"],
      message: "is required when ADVISORY_LLM_API_KEY is set",
    });
  }
  if (
    env.DB_DRIVER === "postgres" && env.DATABASE_URL === undefined &&
    env.SUPABASE_DB_URL === undefined
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_URL"],
      message: "is required when DB_DRIVER is postgres",
    });
  }
  if (
    env.DB_DRIVER === "supabase" &&
    (env.SUPABASE_URL === undefined || env.SUPABASE_SERVICE_ROLE_KEY === undefined)
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["SUPABASE_URL"],
      message: "SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY are required when DB_DRIVER is supabase",
    });
  }
});

type Env = z.infer<typeof EnvSchema>;

/** The service's configuration, with the database driver resolved. */
export type Config = Omit<Env, "DB_DRIVER"> & { DB_DRIVER: "pglite" | "postgres" | "supabase" };

/** A configuration problem; the message names the variable and never its value. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Parses the environment. The driver defaults to `supabase` when SUPABASE_URL
 * and SUPABASE_SERVICE_ROLE_KEY are set, else `postgres` when DATABASE_URL or
 * SUPABASE_DB_URL is, else the embedded `pglite`.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid environment: ${issue.path.join(".")} ${issue.message}`);
  }
  const value = parsed.data;
  const driver = value.DB_DRIVER ??
    (value.SUPABASE_URL !== undefined && value.SUPABASE_SERVICE_ROLE_KEY !== undefined
      ? "supabase"
      : value.DATABASE_URL !== undefined || value.SUPABASE_DB_URL !== undefined
      ? "postgres"
      : "pglite");
  return { ...value, DB_DRIVER: driver };
}

/** The process environment as a plain record (needs --allow-env). */
export function processEnv(): Record<string, string | undefined> {
  return Deno.env.toObject();
}
