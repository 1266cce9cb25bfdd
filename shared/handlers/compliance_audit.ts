import { type Account, accountForApiKey, isAccountInGoodStanding } from "../auth/account.ts";
import { sha256Hex } from "../auth/api_key.ts";
import { AuditRequest, type AuditResponse, codePointLength } from "../contract/audit.ts";
import { validationMessage } from "../contract/validation_message.ts";
import { recordActivity } from "../db/activity_log.ts";
import { activeRulebook } from "../engine/active_rulebook.ts";
import { evaluate } from "../engine/evaluator.ts";
import { cors } from "../http/cors.ts";
import { HttpError } from "../http/http_error.ts";
import { jsonResponse } from "../http/json_response.ts";
import { elapsedMs, type Handler, operation, type OperationContext } from "../http/operation.ts";
import { readJsonBody } from "../http/read_body.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "./deps.ts";

/** The operation's name: its route and its endpoint_queried value. */
export const COMPLIANCE_AUDIT = "complianceAudit";

interface AuditOutcome {
  accepted: boolean;
  usage_count: number;
  monthly_limit: number | null;
}

/**
 * complianceAudit (contract 4.1): content against the active database
 * rulebook. The checks run in the contract's order: key (401), account
 * standing (402), body (400), per-minute limit (429 rate_limited), rulebook
 * (503), then the accepted call, its usage, its audit row and its activity row
 * in one RPC, which refuses past the monthly quota (429 quota_exceeded).
 * asset_url is evidence context only and is never fetched.
 */
export function complianceAudit(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  return operation({
    name: COMPLIANCE_AUDIT,
    logger: deps.logger,
    cors: cors({ origins: deps.corsOrigins }),
    trustedProxyHops: deps.trustedProxyHops,
    render: renderAuditError,
    unexpected: () =>
      new HttpError(503, "service_unavailable", "The service is unavailable; try again later"),
  }, async (req, ctx) => {
    const account = await unavailableOnFailure(() =>
      accountForApiKey(deps.db, req.headers.get("x-api-key"))
    );
    if (account === null) {
      throw new HttpError(401, "invalid_api_key", "The X-API-Key header is missing or invalid");
    }
    try {
      return await audit(req, ctx, account);
    } catch (error) {
      // Every authenticated outcome but acceptance and the quota refusal (both
      // recorded inside audit_record, in the transaction of the usage) is
      // recorded here, in one round trip that cannot fail the request.
      const recordedInRpc = error instanceof HttpError && error.code === "quota_exceeded";
      if (!recordedInRpc) {
        await recordActivity(deps.db, {
          accountId: account.account_id,
          endpoint: COMPLIANCE_AUDIT,
          statusCode: error instanceof HttpError ? error.status : 503,
          latencyMs: elapsedMs(ctx),
          isAgent: true,
        }, { logger: deps.logger, requestId: ctx.requestId });
      }
      throw error;
    }
  });

  async function audit(req: Request, ctx: OperationContext, account: Account): Promise<Response> {
    if (!isAccountInGoodStanding(account, now())) {
      throw new HttpError(402, "account_inactive", "The account is neither active nor trialing");
    }
    const parsed = AuditRequest.safeParse(
      await readJsonBody(req, { maxBytes: limits.auditBodyBytes }),
    );
    if (!parsed.success) {
      throw new HttpError(400, "invalid_request", validationMessage(parsed.error));
    }
    const input = parsed.data;

    const window = await unavailableOnFailure(() =>
      deps.limiter.limit(`audit:${account.account_id}`, limits.auditPerMinute, 60)
    );
    if (!window.success) {
      const retryAfter = Math.max(1, Math.ceil((window.reset - Date.now()) / 1000));
      throw new HttpError(429, "rate_limited", "Per-minute request limit reached", {
        "Retry-After": String(retryAfter),
      });
    }

    const rulebook = await unavailableOnFailure(() => activeRulebook(deps.db));
    const result = evaluate(rulebook.compiled, {
      content: input.content,
      jurisdiction: input.jurisdiction,
      industry: input.industry,
      surface: "content",
    });

    const contentDigest = await sha256Hex(input.content);
    const outcome = await unavailableOnFailure(() =>
      deps.db.rpc<AuditOutcome>("audit_record", {
        p_account_id: account.account_id,
        p_content_sha256: contentDigest,
        p_content_length: codePointLength(input.content),
        p_jurisdiction: input.jurisdiction,
        p_industry: input.industry ?? null,
        p_asset_url: input.asset_url ?? null,
        p_verdict: result.verdict,
        p_risk_score: result.risk_score,
        p_penalty_exposure_usd: result.penalty_exposure_usd,
        p_rulebook_version: rulebook.version,
        p_endpoint: COMPLIANCE_AUDIT,
        p_latency_ms: elapsedMs(ctx),
        p_is_agent: true,
      })
    );
    if (!outcome.accepted) {
      throw new HttpError(429, "quota_exceeded", "Monthly plan quota reached");
    }
    const body: AuditResponse = {
      verdict: result.verdict,
      risk_score: result.risk_score,
      statutes: result.statutes,
      penalty_exposure_usd: result.penalty_exposure_usd,
      remediation: result.remediation,
      jurisdiction: input.jurisdiction,
      ...(input.industry === undefined ? {} : { industry: input.industry }),
      usage: { count: outcome.usage_count, monthly_limit: outcome.monthly_limit },
    };
    return jsonResponse(body);
  }
}

function renderAuditError(error: HttpError): Response {
  return jsonResponse({ error: { code: error.code, message: error.message } }, error.status);
}

/** Runs a dependency call; its failure (database, limiter, rulebook) becomes a 503. */
async function unavailableOnFailure<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(
      503,
      "service_unavailable",
      "The service is unavailable; try again later",
      {},
      {
        cause: error,
      },
    );
  }
}
