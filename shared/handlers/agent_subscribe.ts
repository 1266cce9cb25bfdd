import Papa from "papaparse";
import { type Account, accountForApiKey, isAccountInGoodStanding } from "../auth/account.ts";
import {
  AccountRequest,
  type Activity,
  ACTIVITY_CSV_COLUMNS,
  LogsResponse,
  type VerifyResponse,
} from "../contract/account.ts";
import { validationMessage } from "../contract/validation_message.ts";
import { recordActivity } from "../db/activity_log.ts";
import { cors } from "../http/cors.ts";
import { HttpError } from "../http/http_error.ts";
import { jsonResponse } from "../http/json_response.ts";
import { elapsedMs, type Handler, operation } from "../http/operation.ts";
import { readJsonBody } from "../http/read_body.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "./deps.ts";

/** The operation's name: its route and the stem of its endpoint_queried values. */
export const AGENT_SUBSCRIBE = "agentSubscribe";

const ACTIONS = ["verify", "get_logs", "export_audit"] as const;

/**
 * The endpoint_queried value of an agentSubscribe call: the operation and the
 * action (`agentSubscribe.verify`), or the operation alone when the action is
 * missing or unknown.
 */
export function accountEndpoint(action: unknown): string {
  return (ACTIONS as readonly unknown[]).includes(action)
    ? `${AGENT_SUBSCRIBE}.${action}`
    : AGENT_SUBSCRIBE;
}

/**
 * agentSubscribe (contract 4.2): verify, get_logs and export_audit for the
 * account of an API key. The key comes from `X-API-Key`; the body field
 * `api_key` is the dashboard client's compatibility path, used only when the
 * header is absent (the header wins when both are sent). verify is limited per
 * client IP before the key is looked at, so guessing keys is throttled too.
 */
export function agentSubscribe(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  return operation({
    name: AGENT_SUBSCRIBE,
    logger: deps.logger,
    cors: cors({ origins: deps.corsOrigins }),
    trustedProxyHops: deps.trustedProxyHops,
    render: (error) => jsonResponse({ error: error.message }, error.status),
    unexpected: failed,
  }, async (req, ctx) => {
    const raw = await readJsonBody(req, { maxBytes: limits.accountBodyBytes });
    const body: Record<string, unknown> =
      typeof raw === "object" && raw !== null && !Array.isArray(raw)
        ? raw as Record<string, unknown>
        : {};

    if (body.action === "verify") {
      const window = await failedOnError(() =>
        deps.limiter.limit(`verify:${ctx.ip}`, limits.verifyPerMinute, 60)
      );
      if (!window.success) {
        throw new HttpError(429, "rate_limited", "Too many verify requests; try again later", {
          "Retry-After": String(Math.max(1, Math.ceil((window.reset - Date.now()) / 1000))),
        });
      }
    }

    const headerKey = req.headers.get("x-api-key");
    const viaHeader = headerKey !== null;
    const key = viaHeader ? headerKey : typeof body.api_key === "string" ? body.api_key : null;
    const account = await failedOnError(() => accountForApiKey(deps.db, key));
    if (account === null) throw new HttpError(401, "invalid_api_key", "API key missing or invalid");

    const endpoint = accountEndpoint(body.action);
    let status = 500;
    try {
      const response = await perform(account, raw);
      status = response.status;
      return response;
    } catch (error) {
      if (error instanceof HttpError) status = error.status;
      throw error;
    } finally {
      // The record of this call, 402 and 400 included, in one round trip that
      // cannot fail the request. The dashboard's body-key path is not an agent.
      await recordActivity(deps.db, {
        accountId: account.account_id,
        endpoint,
        statusCode: status,
        latencyMs: elapsedMs(ctx),
        isAgent: viaHeader,
      }, { logger: deps.logger, requestId: ctx.requestId });
    }
  });

  async function perform(account: Account, raw: unknown): Promise<Response> {
    if (!isAccountInGoodStanding(account, now())) {
      throw new HttpError(402, "account_inactive", "The account is neither active nor trialing");
    }
    const parsed = AccountRequest.safeParse(raw);
    if (!parsed.success) {
      throw new HttpError(400, "invalid_request", validationMessage(parsed.error));
    }
    const request = parsed.data;
    switch (request.action) {
      case "verify":
        return jsonResponse(verification(account));
      case "get_logs": {
        const logs = await failedOnError(() =>
          deps.db.rpc<Activity[]>("activity_recent", {
            p_account_id: account.account_id,
            p_limit: limits.logsReturned,
          })
        );
        return jsonResponse(LogsResponse.parse({ logs, account_id: account.account_id }));
      }
      case "export_audit": {
        const month = request.month ?? now().toISOString().slice(0, 7);
        const rows = await failedOnError(() =>
          deps.db.rpc<Activity[]>("activity_month", {
            p_account_id: account.account_id,
            p_month: month,
          })
        );
        return new Response(activityCsv(rows), {
          status: 200,
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="activity-${month}.csv"`,
          },
        });
      }
    }
  }
}

/** Contract 2.8's verification object, exactly its fields. */
function verification(account: Account): VerifyResponse {
  return {
    valid: true,
    plan: account.plan,
    billing_interval: "month",
    price_per_month_usd: account.price_per_month_usd,
    status: account.status === "active" ? "active" : "trialing",
    usage_count: account.usage_count,
    trial_end: account.trial_end,
  };
}

/**
 * The month's activity as RFC 4180 CSV (papaparse): a header row, CRLF line
 * ends, quoting where a value needs it, a null latency as an empty cell.
 */
export function activityCsv(rows: readonly Activity[]): string {
  const csv = Papa.unparse({
    fields: [...ACTIVITY_CSV_COLUMNS],
    data: rows.map((row) => ACTIVITY_CSV_COLUMNS.map((column) => row[column])),
  }, { newline: "\r\n", escapeFormulae: true });
  // papaparse ends a header-only file with a line break and a longer one
  // without; every record here ends with one.
  return csv.endsWith("\r\n") ? csv : `${csv}\r\n`;
}

function failed(cause?: unknown): HttpError {
  return new HttpError(500, "internal", "The account operation failed", {}, { cause });
}

async function failedOnError<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw failed(error);
  }
}
