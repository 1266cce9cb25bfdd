import { type Account, accountForApiKey, isAccountInGoodStanding } from "../auth/account.ts";
import {
  type AccountErrorEnvelope,
  AccountRequest,
  type LogsResponse,
  type VerifyResponse,
} from "../contract/account.ts";
import { activityRecent } from "../db/activity.ts";
import { endpoint, type EndpointSpec, type Handler } from "../http/endpoint.ts";
import { enforceLimit } from "../http/enforce_limit.ts";
import { HttpError } from "../http/http_error.ts";
import { jsonResponse } from "../http/json_response.ts";
import { parseInput } from "../http/parse_json.ts";
import { readJsonBody } from "../http/read_body.ts";
import { activityCsvStream } from "./activity_export.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "./deps.ts";

export { activityCsv } from "./activity_export.ts";

/** The operation's name: its route and the stem of its endpoint_queried values. */
export const AGENT_SUBSCRIBE = "agentSubscribe";

/** Contract 7.2: `{ error }`; 500 when the account operation fails. */
export const AGENT_SUBSCRIBE_ENDPOINT = {
  name: AGENT_SUBSCRIBE,
  envelope: (error) => ({ error: error.message }) satisfies AccountErrorEnvelope,
  unavailable: { status: 500, code: "internal", message: "The account operation failed" },
} satisfies EndpointSpec<AccountErrorEnvelope>;

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
 * account of an API key, in complianceAudit's order of checks: the key
 * (401), the account's standing (402), then the body (400), then verify's
 * limit per client IP (an IPv6 client by its /64; 429), then the action. So
 * every call made with a valid key, a malformed one included, has its
 * activity record, and a caller without a key never gets its body read.
 *
 * The key comes from `X-API-Key`. The body field `api_key` is the dashboard
 * client's compatibility path, used only when the header is absent (the
 * header wins when both are sent): only then is the body read before the
 * key, under the same cap, deadline and read gate as every body.
 */
export function agentSubscribe(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  return endpoint(AGENT_SUBSCRIBE_ENDPOINT, deps, async (req, ctx) => {
    const headerKey = req.headers.get("x-api-key");
    const readBody = () =>
      readJsonBody(req, { maxBytes: limits.accountBodyBytes, ...ctx.bodyReading });
    // The dashboard's path: the key is in the body, which must be read first.
    const bodyFirst = headerKey === null ? await readBody() : undefined;

    const account = await accountForApiKey(deps.db, headerKey ?? callFields(bodyFirst).apiKey);
    if (account === null) throw new HttpError(401, "invalid_api_key", "API key missing or invalid");
    // Recorded under the operation alone until the body names a known action.
    // The dashboard's body-key path is not an agent.
    const subject = {
      accountId: account.account_id,
      endpoint: accountEndpoint(callFields(bodyFirst).action),
      isAgent: headerKey !== null,
    };
    ctx.recordFor(subject);

    if (!isAccountInGoodStanding(account, now())) {
      throw new HttpError(402, "account_inactive", "The account is neither active nor trialing");
    }

    const body = bodyFirst ?? await readBody();
    ctx.recordFor({ ...subject, endpoint: accountEndpoint(callFields(body).action) });
    const request = parseInput(AccountRequest, body);

    if (request.action === "verify") {
      await enforceLimit(deps.limiter, `verify:${ctx.ipLimitKey}`, limits.verifyPerMinute, 60);
    }

    switch (request.action) {
      case "verify":
        return jsonResponse(verification(account));
      case "get_logs": {
        const logs = await activityRecent(deps.db, {
          accountId: account.account_id,
          limit: limits.logsReturned,
        });
        return jsonResponse({ logs, account_id: account.account_id } satisfies LogsResponse);
      }
      case "export_audit": {
        const month = request.month ?? now().toISOString().slice(0, 7);
        // Streamed in pages (activity_export.ts): the month is never held at once.
        const csv = await activityCsvStream({
          db: deps.db,
          logger: deps.logger,
          requestId: ctx.requestId,
          accountId: account.account_id,
          month,
          pageRows: limits.exportPageRows,
        });
        return new Response(csv, {
          status: 200,
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="activity-${month}.csv"`,
          },
        });
      }
    }
  });
}

/** The action and the body key of a call, read before the request is validated. */
function callFields(body: unknown): { action: unknown; apiKey: string | undefined } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { action: undefined, apiKey: undefined };
  }
  const fields = body as Record<string, unknown>;
  return {
    action: fields.action,
    apiKey: typeof fields.api_key === "string" ? fields.api_key : undefined,
  };
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
