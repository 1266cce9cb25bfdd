import { activityRecord } from "../db/activity.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "../handlers/deps.ts";
import { clientIp, type ConnInfo, ipLimitKey } from "./client_ip.ts";
import { cors } from "./cors.ts";
import { HttpError } from "./http_error.ts";
import { jsonResponse } from "./json_response.ts";
import { BodyReadersBusyError, type BodyReadGate } from "./read_body.ts";

/** A served function: what `Deno.serve` takes. */
export type Handler = (req: Request, info?: ConnInfo) => Promise<Response>;

/** Who a call is recorded for in the activity log, once its key is known. */
export interface ActivitySubject {
  accountId: string;
  /** The `endpoint_queried` value. */
  endpoint: string;
  isAgent: boolean;
  /**
   * The operation's own RPC records the successful call, atomically with its
   * effects (audit_record); every other outcome is recorded here.
   */
  successRecordedByRpc?: boolean;
}

/** What a handler receives besides the request. */
export interface RequestContext {
  requestId: string;
  /** The client IP as observed at runtime (see clientIp). */
  ip: string;
  /**
   * The key every per-IP limit counts this client under (see ipLimitKey): an
   * IPv6 client by its /64, so rotating addresses within it does not get a
   * fresh bucket. Per-IP limits use this, never `ip`.
   */
  ipLimitKey: string;
  /** Milliseconds since the request arrived, rounded to 0.01 ms. */
  elapsedMs(): number;
  /** Records this call's outcome, whatever it is, in the account's activity log. */
  recordFor(subject: ActivitySubject): void;
  /**
   * How this request's body is read, besides its cap: its deadline and the
   * gate that bounds concurrent reads (spread into readJsonBody/parseJson).
   */
  bodyReading: { deadlineMs: number; gate?: BodyReadGate };
}

/** One endpoint of the contract: its name, its error envelope and its 5xx. */
export interface EndpointSpec<Envelope> {
  /** The operation's name, as in its route and its log lines. */
  name: string;
  /** The endpoint's error envelope (contract section 7) for an HttpError. */
  envelope(error: HttpError, ctx: RequestContext): Envelope;
  /** What a failed dependency (database, limiter, rulebook) or any unexpected error becomes. */
  unavailable: { status: 500 | 503; code: string; message: string };
  /**
   * True for an operation meant for browsers: it answers the CORS preflight
   * and puts the CORS headers on every response. Only the operation without a
   * credential sets it: keys and webhook secrets must not live in browser
   * code, so the key-based operations send no CORS header and a browser
   * refuses to call them from another origin.
   */
  browser?: boolean;
}

/**
 * The skeleton every operation is built from. It does, the same way for all:
 * OPTIONS (with CORS headers for a browser operation, on every response),
 * POST only, a request
 * id, one JSON log line per request, the activity record of an authenticated
 * call, and the one place where failures become the endpoint's envelope:
 * an HttpError as it is, anything else as the endpoint's 5xx. A 5xx is logged
 * at error with the failure's kind (name and SQLSTATE, never its message,
 * which could carry data); a 501 of an unbuilt operation is not an error.
 * The handler is left with the contract's order of checks.
 */
export function endpoint<Envelope>(
  spec: EndpointSpec<Envelope>,
  deps: ServiceDeps,
  handle: (req: Request, ctx: RequestContext) => Promise<Response>,
): Handler {
  const corsHeaders: (req: Request) => Record<string, string> = spec.browser
    ? cors({ origins: deps.corsOrigins })
    : () => ({});
  const log = deps.logger;
  const bodyReading = {
    deadlineMs: deps.limits?.bodyDeadlineMs ?? DEFAULT_LIMITS.bodyDeadlineMs,
    ...(deps.bodyReads === undefined ? {} : { gate: deps.bodyReads }),
  };
  return async (req, info) => {
    const startedAt = performance.now();
    let subject: ActivitySubject | undefined;
    const ip = clientIp(req, info, deps.trustedProxyHops);
    const ctx: RequestContext = {
      requestId: crypto.randomUUID(),
      ip,
      ipLimitKey: ipLimitKey(ip),
      elapsedMs: () => Math.round((performance.now() - startedAt) * 100) / 100,
      recordFor: (who) => {
        subject = who;
      },
      bodyReading,
    };
    let response: Response;
    if (req.method === "OPTIONS") {
      response = new Response(null, { status: 204, headers: { Allow: "POST, OPTIONS" } });
    } else {
      try {
        if (req.method !== "POST") {
          throw new HttpError(405, "invalid_request", "Only POST is allowed", {
            headers: { Allow: "POST, OPTIONS" },
          });
        }
        response = await handle(req, ctx);
      } catch (error) {
        const failure = error instanceof HttpError ? error : new HttpError(
          spec.unavailable.status,
          spec.unavailable.code,
          spec.unavailable.message,
          // A server too busy to read the body now has room again in a moment.
          error instanceof BodyReadersBusyError
            ? { cause: error, headers: { "Retry-After": "1" } }
            : { cause: error },
        );
        if (failure.status >= 500 && failure.status !== 501) {
          log.log("error", "request failed", {
            request_id: ctx.requestId,
            operation: spec.name,
            status: failure.status,
            error: describeCause(failure.cause),
          });
        }
        response = jsonResponse(spec.envelope(failure, ctx), failure.status, failure.headers);
      }
    }
    if (subject !== undefined && !(response.ok && subject.successRecordedByRpc)) {
      await recordActivity(deps, subject, response.status, ctx);
    }
    for (const [name, value] of Object.entries(corsHeaders(req))) {
      response.headers.set(name, value);
    }
    response.headers.set("x-request-id", ctx.requestId);
    log.log("info", "request", {
      request_id: ctx.requestId,
      operation: spec.name,
      method: req.method,
      status: response.status,
      latency_ms: ctx.elapsedMs(),
    });
    return response;
  };
}

/**
 * Appends the call's activity record in one round trip. A failure is logged
 * and swallowed: the record never fails the request it records.
 */
async function recordActivity(
  deps: ServiceDeps,
  subject: ActivitySubject,
  statusCode: number,
  ctx: RequestContext,
): Promise<void> {
  try {
    await activityRecord(deps.db, {
      accountId: subject.accountId,
      endpoint: subject.endpoint,
      statusCode,
      latencyMs: ctx.elapsedMs(),
      isAgent: subject.isAgent,
    });
  } catch (error) {
    deps.logger.log("warn", "activity record not written", {
      request_id: ctx.requestId,
      endpoint: subject.endpoint,
      error: describeCause(error),
    });
  }
}

/** A failure's kind for the log: its name and, for database errors, SQLSTATE; never its message. */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return cause === undefined ? "none" : typeof cause;
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" ? `${cause.name} ${code}` : cause.name;
}
