import type { Logger } from "../log/logger.ts";
import { clientIp, type ConnInfo } from "./client_ip.ts";
import { HttpError } from "./http_error.ts";

/** What every operation's inner handler receives besides the request. */
export interface OperationContext {
  requestId: string;
  /** `performance.now()` when the request arrived. */
  startedAt: number;
  /** The client IP as observed at runtime (see clientIp). */
  ip: string;
}

/** A served function: what `Deno.serve` takes. */
export type Handler = (req: Request, info?: ConnInfo) => Promise<Response>;

/** Options of {@linkcode operation}. */
export interface OperationOptions {
  /** The operation's name, as in its route and its log lines. */
  name: string;
  logger: Logger;
  /** CORS headers for a request, put on every response. */
  cors: (req: Request) => Record<string, string>;
  trustedProxyHops: number;
  /** Renders an HttpError in the endpoint's own envelope. */
  render: (error: HttpError, ctx: OperationContext) => Response;
  /** What an unexpected exception becomes: the endpoint's 500 or 503. */
  unexpected: () => HttpError;
}

/**
 * Wraps an operation's handler with what every endpoint does the same way:
 * the CORS preflight, POST only, a request id, one JSON log line per request,
 * and a single place where failures become the endpoint's envelope. An
 * unexpected exception is logged by name only (never its message, which could
 * carry data) and answered without internals.
 */
export function operation(
  options: OperationOptions,
  handle: (req: Request, ctx: OperationContext) => Promise<Response>,
): Handler {
  return async (req, info) => {
    const ctx: OperationContext = {
      requestId: crypto.randomUUID(),
      startedAt: performance.now(),
      ip: clientIp(req, info, options.trustedProxyHops),
    };
    let response: Response;
    if (req.method === "OPTIONS") {
      response = new Response(null, { status: 204 });
    } else {
      try {
        if (req.method !== "POST") {
          throw new HttpError(405, "invalid_request", "Only POST is allowed", {
            Allow: "POST, OPTIONS",
          });
        }
        response = await handle(req, ctx);
      } catch (error) {
        const failure = error instanceof HttpError ? error : options.unexpected();
        const cause = error instanceof HttpError ? error.cause : error;
        if (failure.status >= 500) {
          options.logger.log("error", "request failed", {
            request_id: ctx.requestId,
            operation: options.name,
            status: failure.status,
            error: describeCause(cause),
          });
        }
        response = options.render(failure, ctx);
        for (const [name, value] of Object.entries(failure.headers)) {
          response.headers.set(name, value);
        }
      }
    }
    for (const [name, value] of Object.entries(options.cors(req))) {
      response.headers.set(name, value);
    }
    response.headers.set("x-request-id", ctx.requestId);
    options.logger.log("info", "request", {
      request_id: ctx.requestId,
      operation: options.name,
      method: req.method,
      status: response.status,
      latency_ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
    });
    return response;
  };
}

/** Milliseconds since the request arrived, rounded to 0.01 ms. */
export function elapsedMs(ctx: OperationContext): number {
  return Math.round((performance.now() - ctx.startedAt) * 100) / 100;
}

/** A failure's kind for the log: its name and, for database errors, SQLSTATE; never its message. */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return cause === undefined ? "none" : typeof cause;
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" ? `${cause.name} ${code}` : cause.name;
}
