import { sha256Hex } from "../auth/api_key.ts";
import {
  type AuthenticatedCaller,
  prepareSharedSecret,
  webhookCallerFor,
} from "../auth/webhook_credential.ts";
import {
  carriesCredential,
  type TranscriptFailure,
  TranscriptRequest,
  type TranscriptResponse,
  type WebhookErrorEnvelope,
} from "../contract/webhook_ingest.ts";
import { validationMessage } from "../contract/validation_message.ts";
import {
  type DeliveryState,
  type StoredScan,
  transcriptDeliveryBegin,
  transcriptDeliveryRelease,
  transcriptScanStore,
} from "../db/transcripts.ts";
import { type ActiveRulebook, activeRulebook } from "../engine/active_rulebook.ts";
import {
  describeCause,
  endpoint,
  type EndpointSpec,
  type Handler,
  type RequestContext,
} from "../http/endpoint.ts";
import { enforceLimit } from "../http/enforce_limit.ts";
import { HttpError } from "../http/http_error.ts";
import { jsonResponse } from "../http/json_response.ts";
import { readJsonBody } from "../http/read_body.ts";
import { DEFAULT_LIMITS, type ServiceDeps, type ServiceLimits } from "./deps.ts";
import { evaluateTranscript } from "./transcript_evaluation.ts";

/** The operation's name: its route and its log lines. */
export const WEBHOOK_INGEST = "webhookIngest";

/**
 * The one answer to a missing, invalid, revoked or unknown credential (and to
 * a request that sends `X-API-Key`): the same status, headers and bytes.
 */
export const UNAUTHORIZED_MESSAGE =
  "Missing or invalid credential: send the integration's credential in the x-webhook-secret header";

/** The message of a processing failure answered with HTTP 200 and `success: false`. */
export const PROCESSING_FAILED_MESSAGE = "The transcript could not be processed and was not stored";

/**
 * Contract 7.4: `{ success: false, error, processing_ms }`, sanitized: no
 * account, integration or credential detail. The 401 leaves processing_ms out
 * so that every 401 is byte-identical. An unexpected failure before the
 * request is authenticated and validated is a 500; the limiter and the
 * rulebook answer 503 themselves; later failures are HTTP 200 `success: false`.
 */
export const WEBHOOK_INGEST_ENDPOINT = {
  name: WEBHOOK_INGEST,
  envelope: (error, ctx) =>
    (error.status === 401 ? { success: false, error: error.message } : {
      success: false,
      error: error.message,
      processing_ms: ctx.elapsedMs(),
    }) satisfies WebhookErrorEnvelope,
  unavailable: { status: 500, code: "internal", message: "Processing error; try again later" },
} satisfies EndpointSpec<WebhookErrorEnvelope>;

/**
 * webhookIngest (contract 4.4): a transcript from a chat platform, CRM or
 * automation tool, evaluated against the transcript rules of the active
 * database rulebook under the integration's jurisdictions and industry,
 * stored as audit evidence, answered with a grade and counts. In order:
 * credential (401), body (400), delivery already stored (its first result,
 * nothing counted), rate limit (429/503), rulebook (503), evaluation and
 * storage (HTTP 200 `success: false` on failure).
 */
export function webhookIngest(deps: ServiceDeps): Handler {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => new Date());
  // The shared secret is hashed once here, not on every request.
  const shared = deps.webhookShared === undefined
    ? undefined
    : prepareSharedSecret(deps.webhookShared);
  const sharedSecret = deps.webhookShared?.secret ?? "";
  return endpoint(WEBHOOK_INGEST_ENDPOINT, deps, async (req, ctx) => {
    const presented = req.headers.get("x-webhook-secret");
    const caller = await webhookCallerFor(deps.db, presented, { shared, now: now() });
    // The credential goes only in x-webhook-secret: a request that sends an
    // API key is refused as if it had no credential.
    if (caller === null || req.headers.has("x-api-key")) {
      throw new HttpError(401, "unauthorized", UNAUTHORIZED_MESSAGE);
    }

    const body = await readJsonBody(req, { maxBytes: limits.webhookBodyBytes, ...ctx.bodyReading });
    // The body is checked against the schema first, and only what the schema
    // checked is searched for credentials: the presented one, and the shared
    // secret whichever way the request authenticated (a transcript sent with
    // an integration credential must not store the deployment's secret).
    const parsed = TranscriptRequest.safeParse(body);
    if (carriesCredential(parsed, [presented ?? "", sharedSecret])) {
      throw new HttpError(
        400,
        "invalid_request",
        "Credentials go only in the x-webhook-secret header, never in the body",
      );
    }
    if (!parsed.success) {
      throw new HttpError(400, "invalid_request", validationMessage(parsed.error));
    }
    const input = parsed.data;
    if (input.account_id !== undefined && input.account_id !== caller.account_id) {
      throw new HttpError(
        400,
        "invalid_request",
        "account_id does not match the account of this credential; leave it out",
      );
    }

    return await ingest({ deps, limits, ctx, caller, input, at: now() });
  });
}

interface Delivery {
  deps: ServiceDeps;
  limits: ServiceLimits;
  ctx: RequestContext;
  caller: AuthenticatedCaller;
  input: TranscriptRequest;
  at: Date;
}

/**
 * Processes an authenticated, valid delivery once per integration and
 * content: a delivery already stored is answered with its first result, and
 * concurrent duplicates wait for the one request that holds its claim. Only
 * the claimant counts against the rate limit. Whatever fails after the claim
 * gives it up again, so nothing partial stays behind.
 */
async function ingest(delivery: Delivery): Promise<Response> {
  const { deps, limits, ctx, caller, input } = delivery;
  const idempotencyKey = await deliveryKey(input);
  let state: DeliveryState;
  try {
    state = await claimOrAwait(delivery, idempotencyKey);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    return processingFailure(delivery, "claim", error);
  }
  if (state.state === "stored") return success(state.scan, ctx);
  if (state.state !== "claimed") throw new Error("unreachable delivery state");

  const claim = state.claim;
  try {
    await limitOrRefuse(deps, caller, limits.webhookPerMinute);
    const rulebook = await rulebookOrRefuse(deps);
    const evaluation = evaluateTranscript(rulebook.compiled, input.messages, {
      jurisdictions: caller.jurisdictions,
      industry: caller.industry,
      at: delivery.at,
    });
    const stored = await transcriptScanStore(deps.db, {
      claim,
      accountId: caller.account_id,
      integrationId: caller.integration_id,
      authPath: caller.authPath,
      idempotencyKey,
      source: input.source,
      channel: input.channel ?? null,
      channelOrigin: input.channel ?? input.source,
      externalConversationId: input.conversation_id ?? null,
      jurisdictions: caller.jurisdictions,
      industry: caller.industry,
      rulebookVersion: rulebook.version,
      grade: evaluation.grade,
      score: evaluation.score,
      criticalViolations: evaluation.criticalViolations,
      warnings: evaluation.warnings,
      passedChecks: evaluation.passedChecks,
      payload: {
        messages: input.messages,
        findings: evaluation.findings,
        passed: evaluation.passed,
        scan_meta: { rulebook_source: "database", rulebook_version: rulebook.version },
      },
    });
    if (stored.state === "lost") throw new Error("The delivery's claim was taken over");
    return success(stored.scan, ctx);
  } catch (error) {
    await transcriptDeliveryRelease(deps.db, claim).catch((releaseError) =>
      deps.logger.log("warn", "delivery claim not released", {
        request_id: ctx.requestId,
        error: describeCause(releaseError),
      })
    );
    if (error instanceof HttpError) throw error;
    return processingFailure(delivery, "evaluate or store", error);
  }
}

/**
 * The delivery's state once it is stored or claimed by this request. While
 * another request holds the claim, waits for its result (backing off up to
 * 250 ms between looks); past `webhookDuplicateWaitMs` answers 503 with
 * Retry-After, so the platform retries once the claim is done or expired.
 */
async function claimOrAwait(delivery: Delivery, idempotencyKey: string): Promise<DeliveryState> {
  const { deps, limits, caller } = delivery;
  const deadline = performance.now() + limits.webhookDuplicateWaitMs;
  let pause = 20;
  while (true) {
    const state = await transcriptDeliveryBegin(deps.db, {
      integrationId: caller.integration_id,
      idempotencyKey,
      leaseSeconds: limits.webhookClaimLeaseSeconds,
    });
    if (state.state !== "pending") return state;
    if (performance.now() + pause > deadline) {
      throw new HttpError(
        503,
        "service_unavailable",
        "The same delivery is still being processed; retry later",
        { headers: { "Retry-After": String(state.retry_after_seconds) } },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(250, pause * 2);
  }
}

/** Counts the delivery against its account-and-integration limit; a failed limiter is a 503. */
async function limitOrRefuse(
  deps: ServiceDeps,
  caller: AuthenticatedCaller,
  perMinute: number,
): Promise<void> {
  try {
    await enforceLimit(
      deps.limiter,
      `webhook:${caller.account_id}:${caller.integration_id}`,
      perMinute,
      60,
    );
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(
      503,
      "service_unavailable",
      "Rate limiting is unavailable; try again later",
      {
        cause: error,
      },
    );
  }
}

/** The active database rulebook; none, or one that cannot be loaded, is a 503 (never a fallback). */
async function rulebookOrRefuse(deps: ServiceDeps): Promise<ActiveRulebook> {
  try {
    return await activeRulebook(deps.db);
  } catch (error) {
    throw new HttpError(503, "service_unavailable", "Evaluation is unavailable; try again later", {
      cause: error,
    });
  }
}

/**
 * The idempotency key of a delivery: SHA-256 of its conversation id, source,
 * channel and messages after validation (trimmed, sender normalised). A
 * retried delivery has the same key; a conversation that grew has another.
 */
export async function deliveryKey(input: TranscriptRequest): Promise<string> {
  return await sha256Hex(JSON.stringify([
    input.conversation_id ?? null,
    input.source,
    input.channel ?? null,
    input.messages.map((m) => [m.sender, m.text, m.timestamp ?? null]),
  ]));
}

function success(scan: StoredScan, ctx: RequestContext): Response {
  return jsonResponse(
    {
      success: true,
      scan_result_id: scan.scan_result_id,
      channel_origin: scan.channel_origin,
      ...(scan.external_conversation_id === undefined
        ? {}
        : { external_conversation_id: scan.external_conversation_id }),
      grade: scan.grade,
      score: scan.score,
      critical_violations: scan.critical_violations,
      warnings: scan.warnings,
      passed_checks: scan.passed_checks,
      processing_ms: ctx.elapsedMs(),
      scan_meta: { rulebook_source: "database" },
    } satisfies TranscriptResponse,
  );
}

/**
 * A processing failure after authentication and validation: HTTP 200 with
 * `success: false`, so that the calling platform does not retry in a storm.
 * Logged at error with the failure's kind only (never a message, which could
 * carry transcript text).
 */
function processingFailure(delivery: Delivery, stage: string, error: unknown): Response {
  delivery.deps.logger.log("error", "transcript processing failed", {
    request_id: delivery.ctx.requestId,
    operation: WEBHOOK_INGEST,
    stage,
    error: describeCause(error),
  });
  return jsonResponse(
    {
      success: false,
      error: PROCESSING_FAILED_MESSAGE,
      processing_ms: delivery.ctx.elapsedMs(),
    } satisfies TranscriptFailure,
  );
}
