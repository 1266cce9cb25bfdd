import { accountForApiKey, isAccountInGoodStanding } from "../auth/account.ts";
import { sha256Hex } from "../auth/api_key.ts";
import {
  assetUrlForStorage,
  AUDIT_ERROR_CODES,
  type AuditErrorCode,
  type AuditErrorEnvelope,
  AuditRequest,
  type AuditResponse,
  codePointLength,
} from "../contract/audit.ts";
import { auditRecord } from "../db/audits.ts";
import { activeRulebook } from "../engine/active_rulebook.ts";
import { evaluate } from "../engine/evaluator.ts";
import { endpoint, type EndpointSpec, type Handler } from "../http/endpoint.ts";
import { enforceLimit } from "../http/enforce_limit.ts";
import { HttpError } from "../http/http_error.ts";
import { jsonResponse } from "../http/json_response.ts";
import { parseJson } from "../http/parse_json.ts";
import { DEFAULT_LIMITS, type ServiceDeps } from "./deps.ts";

/** The operation's name: its route and its endpoint_queried value. */
export const COMPLIANCE_AUDIT = "complianceAudit";

/** Contract 7.1: `{ error: { code, message } }`, with the contract's codes only; 503 on failure. */
export const COMPLIANCE_AUDIT_ENDPOINT = {
  name: COMPLIANCE_AUDIT,
  envelope: (error) =>
    ({
      error: { code: auditErrorCode(error), message: error.message },
    }) satisfies AuditErrorEnvelope,
  unavailable: {
    status: 503,
    code: "service_unavailable",
    message: "The service is unavailable; try again later",
  },
} satisfies EndpointSpec<AuditErrorEnvelope>;

/**
 * complianceAudit (contract 4.1): content against the active database
 * rulebook, in the contract's order of checks. asset_url is evidence context
 * only and is never fetched; it is stored without credentials, query or
 * fragment (assetUrlForStorage). The content itself is never stored.
 */
export function complianceAudit(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  return endpoint(COMPLIANCE_AUDIT_ENDPOINT, deps, async (req, ctx) => {
    const account = await accountForApiKey(deps.db, req.headers.get("x-api-key"));
    if (account === null) {
      throw new HttpError(401, "invalid_api_key", "The X-API-Key header is missing or invalid");
    }
    ctx.recordFor({
      accountId: account.account_id,
      endpoint: COMPLIANCE_AUDIT,
      isAgent: true,
      successRecordedByRpc: true,
    });

    if (!isAccountInGoodStanding(account, now())) {
      throw new HttpError(402, "account_inactive", "The account is neither active nor trialing");
    }

    const input = await parseJson(req, AuditRequest, {
      maxBytes: limits.auditBodyBytes,
      ...ctx.bodyReading,
    });

    await enforceLimit(deps.limiter, `audit:${account.account_id}`, limits.auditPerMinute, 60);

    const rulebook = await activeRulebook(deps.db);
    const result = evaluate(rulebook.compiled, {
      content: input.content,
      jurisdiction: input.jurisdiction,
      industry: input.industry,
      surface: "content",
    });

    const outcome = await auditRecord(deps.db, {
      accountId: account.account_id,
      contentSha256: await sha256Hex(input.content),
      contentLength: codePointLength(input.content),
      jurisdiction: input.jurisdiction,
      industry: input.industry ?? null,
      assetUrl: input.asset_url === undefined ? null : assetUrlForStorage(input.asset_url),
      verdict: result.verdict,
      riskScore: result.risk_score,
      penaltyExposureUsd: result.penalty_exposure_usd,
      rulebookVersion: rulebook.version,
      endpoint: COMPLIANCE_AUDIT,
      latencyMs: ctx.elapsedMs(),
      isAgent: true,
    });
    if (!outcome.accepted) {
      throw new HttpError(429, "quota_exceeded", "Monthly plan quota reached");
    }

    return jsonResponse(
      {
        verdict: result.verdict,
        risk_score: result.risk_score,
        statutes: result.statutes,
        penalty_exposure_usd: result.penalty_exposure_usd,
        remediation: result.remediation,
        jurisdiction: input.jurisdiction,
        ...(input.industry === undefined ? {} : { industry: input.industry }),
        usage: { count: outcome.usage_count, monthly_limit: outcome.monthly_limit },
      } satisfies AuditResponse,
    );
  });
}

/** The contract's code for an error: its own when it is one, else by its status. */
function auditErrorCode(error: HttpError): AuditErrorCode {
  const own = AUDIT_ERROR_CODES.find((code) => code === error.code);
  if (own !== undefined) return own;
  return error.status >= 500 ? "service_unavailable" : "invalid_request";
}
