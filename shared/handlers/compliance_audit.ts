import { auditAccountForApiKey, isAccountInGoodStanding } from "../auth/account.ts";
import { sha256Hex } from "../auth/api_key.ts";
import {
  assetUrlForStorage,
  AUDIT_ERROR_CODES,
  type AuditErrorCode,
  type AuditErrorEnvelope,
  AuditRequest,
  AuditResponse,
  codePointLength,
} from "../contract/audit.ts";
import { auditRecord } from "../db/audits.ts";
import { DbError } from "../db/db.ts";
import { rulebookOfVersion } from "../engine/active_rulebook.ts";
import { loadHtmlReader, looksLikeHtml } from "../engine/document/html_reader.ts";
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
 *
 * An `Idempotency-Key` header (Stripe's convention) makes a retry safe: the
 * key, as digests of the key and of the request, goes into audit_record's one
 * transaction with the charge, which replays the key's first answer instead
 * of charging again, or reports the key used with another request (400).
 */
export function complianceAudit(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  return endpoint(COMPLIANCE_AUDIT_ENDPOINT, deps, async (req, ctx) => {
    // One round trip: the account and the active rulebook's version.
    const account = await auditAccountForApiKey(deps.db, req.headers.get("x-api-key"));
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
    const idempotencyKey = idempotencyKeyOf(req);

    await enforceLimit(deps.limiter, `audit:${account.account_id}`, limits.auditPerMinute, 60);

    // The version read with the account; its body comes from the per-isolate
    // cache, or from rulebook_get once per version.
    const rulebook = await rulebookOfVersion(deps.db, account.active_rulebook_version);
    // linkedom is imported the first time an audit's content is HTML.
    if (looksLikeHtml(input.content)) await loadHtmlReader();
    const result = evaluate(rulebook.compiled, {
      content: input.content,
      jurisdiction: input.jurisdiction,
      industry: input.industry,
      surface: "content",
    });

    const answer = {
      verdict: result.verdict,
      risk_score: result.risk_score,
      statutes: result.statutes,
      penalty_exposure_usd: result.penalty_exposure_usd,
      remediation: result.remediation,
      jurisdiction: input.jurisdiction,
      ...(input.industry === undefined ? {} : { industry: input.industry }),
    };
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
      ...(idempotencyKey === null ? {} : {
        idempotency: {
          keySha256: await sha256Hex(idempotencyKey),
          requestSha256: await requestDigest(input),
          response: answer,
        },
      }),
    });
    if (outcome.conflict) {
      throw new HttpError(
        400,
        "invalid_request",
        "This Idempotency-Key was used with a different request; use a new key for a new request",
      );
    }
    if (!outcome.accepted) {
      throw new HttpError(429, "quota_exceeded", "Monthly plan quota reached");
    }

    const usage = { count: outcome.usage_count, monthly_limit: outcome.monthly_limit };
    if (outcome.replayed) {
      const first = StoredAnswer.safeParse(outcome.response);
      if (!first.success) throw new DbError("audit_record replayed an unexpected answer");
      return jsonResponse(auditBody(first.data, usage));
    }
    return jsonResponse(auditBody(answer, usage));
  });
}

/** The first answer as audit_record keeps it for its key: the response less `usage`. */
const StoredAnswer = AuditResponse.omit({ usage: true });

/**
 * The 200 body, built one way for a new audit and for a replay, so that a
 * replay's bytes are the first answer's (jsonb does not keep key order).
 */
function auditBody(
  answer: Omit<AuditResponse, "usage">,
  usage: AuditResponse["usage"],
): AuditResponse {
  return {
    verdict: answer.verdict,
    risk_score: answer.risk_score,
    statutes: answer.statutes.map((s) => ({
      tier_key: s.tier_key,
      citation: s.citation,
      penalty_usd: s.penalty_usd,
    })),
    penalty_exposure_usd: answer.penalty_exposure_usd,
    remediation: answer.remediation.map((r) => ({
      rule_key: r.rule_key,
      title: r.title,
      recommendation: r.recommendation,
    })),
    jurisdiction: answer.jurisdiction,
    ...(answer.industry === undefined ? {} : { industry: answer.industry }),
    usage: { count: usage.count, monthly_limit: usage.monthly_limit },
  };
}

/** Stripe's limit on an Idempotency-Key: 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, null without one; a malformed key is a 400. */
function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers.get("idempotency-key");
  if (key === null) return null;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new HttpError(
      400,
      "invalid_request",
      "Idempotency-Key must be 1 to 255 visible ASCII characters",
    );
  }
  return key;
}

/**
 * The SHA-256 of the request's canonical form: what a retry must repeat for
 * its key. The audited content enters only this digest; it is never stored.
 */
function requestDigest(input: AuditRequest): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      input.content,
      input.jurisdiction,
      input.industry ?? null,
      input.asset_url ?? null,
    ]),
  );
}

/** The contract's code for an error: its own when it is one, else by its status. */
function auditErrorCode(error: HttpError): AuditErrorCode {
  const own = AUDIT_ERROR_CODES.find((code) => code === error.code);
  if (own !== undefined) return own;
  return error.status >= 500 ? "service_unavailable" : "invalid_request";
}
