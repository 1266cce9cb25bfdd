import { z } from "zod";
import { API_KEY_PREFIX } from "../auth/api_key.ts";
import { WEBHOOK_CREDENTIAL_PREFIX } from "../auth/webhook_credential.ts";
import { GRADES } from "./grade.ts";

/** Most messages one transcript request may carry (the service's own limit). */
export const MAX_TRANSCRIPT_MESSAGES = 500;
/** Largest transcript request body in bytes (1 MiB), enforced while the body streams in. */
export const MAX_TRANSCRIPT_BODY_BYTES = 1024 * 1024;

/** The senders of contract 2.5. */
export const SENDERS = ["bot", "user"] as const;

/**
 * Text that can be stored: no NUL character and no lone UTF-16 surrogate.
 * PostgreSQL's text and jsonb hold neither, so a transcript carrying one
 * would fail at storage; it is refused as a bad request instead.
 */
function storableText() {
  return z.string().refine(
    (value) => !value.includes("\u0000") && value.isWellFormed(),
    "must be Unicode text without NUL characters or lone surrogates",
  );
}

/** A string trimmed at both ends that must keep at least one character. */
function trimmedText() {
  return storableText().trim().min(1, "must not be empty or only whitespace");
}

/** An optional string trimmed at both ends; empty after trimming counts as absent. */
function optionalTrimmed() {
  return storableText().trim().optional().transform((value) => value === "" ? undefined : value);
}

/**
 * Contract 2.5: one message. `sender` is `bot` or `user`, normalised by
 * trimming and lower-casing (`" Bot "` is `bot`; `assistant` is refused);
 * `text` is trimmed and must keep a character; `timestamp` is an ISO 8601
 * date-time with a UTC offset or `Z`. Unknown fields and aliases (`role`,
 * `content`, `message`, `from`, ...) are refused.
 */
export const TranscriptMessage = z.strictObject({
  sender: z.string().trim().toLowerCase().pipe(z.enum(SENDERS)),
  text: trimmedText(),
  timestamp: z.iso.datetime({
    offset: true,
    message: "must be an ISO 8601 date-time with an offset",
  })
    .optional(),
});
export type TranscriptMessage = z.infer<typeof TranscriptMessage>;

/**
 * Contract 2.5: the webhookIngest request. `source` is trimmed and must keep
 * a character; `channel`, `account_id` and `conversation_id` are trimmed and
 * count as absent when empty; 1 to MAX_TRANSCRIPT_MESSAGES messages. Unknown
 * fields and aliases (`conversationId`, `transcript`, ...) are refused.
 */
export const TranscriptRequest = z.strictObject({
  source: trimmedText(),
  channel: optionalTrimmed(),
  account_id: optionalTrimmed(),
  conversation_id: optionalTrimmed(),
  messages: z.array(TranscriptMessage)
    .min(1, "at least one message is required")
    .max(MAX_TRANSCRIPT_MESSAGES, `at most ${MAX_TRANSCRIPT_MESSAGES} messages per request`),
});
export type TranscriptRequest = z.infer<typeof TranscriptRequest>;

/** Contract 2.6: the success form. */
export const TranscriptResponse = z.strictObject({
  success: z.literal(true),
  scan_result_id: z.string(),
  channel_origin: z.string(),
  external_conversation_id: z.string().optional(),
  grade: z.enum(GRADES),
  score: z.number().min(0).max(100),
  critical_violations: z.number().int().min(0),
  warnings: z.number().int().min(0),
  passed_checks: z.number().int().min(0),
  processing_ms: z.number().min(0),
  scan_meta: z.strictObject({ rulebook_source: z.literal("database") }),
});
export type TranscriptResponse = z.infer<typeof TranscriptResponse>;

/** Contract 2.6: the failure form of a processing failure (HTTP 200). */
export const TranscriptFailure = z.strictObject({
  success: z.literal(false),
  error: z.string(),
  processing_ms: z.number().min(0),
});
export type TranscriptFailure = z.infer<typeof TranscriptFailure>;

/**
 * Contract 7.4: the webhookIngest error envelope, sanitized: no account or
 * credential detail ever appears in `error`.
 */
export const WebhookErrorEnvelope = z.strictObject({
  success: z.literal(false),
  error: z.string(),
  processing_ms: z.number().optional(),
});
export type WebhookErrorEnvelope = z.infer<typeof WebhookErrorEnvelope>;

/** Unknown field names that look like a credential: refused as a credential, not as a field. */
const SECRET_LIKE_NAME =
  /secret|token|passw|api[_-]?key|apikey|credential|bearer|signature|private[_-]?key|^auth$|authori[sz]/i;

/** Text matched literally inside a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Values shaped like this service's credentials (webhook credentials and API keys). */
const CREDENTIAL_VALUE = new RegExp(
  `(?:${literal(WEBHOOK_CREDENTIAL_PREFIX)}|${literal(API_KEY_PREFIX)})[A-Za-z0-9_-]{20,}`,
);

/** Shortest secret looked for in a body: a shorter one would match ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * Whether a request body, as TranscriptRequest parsed it, carries a
 * credential: one of this service's credentials, or one of `secrets` (the
 * credential the request was authenticated with, the deployment's shared
 * secret), in any string the request keeps (source, channel, account_id,
 * conversation_id, a message's text or timestamp); or, when the schema
 * refused the body, an unknown field at the top level or in a message whose
 * name looks like a secret (`secret`, `api_key`, `token`, `authorization`,
 * ...) or holds one. Such a body is refused and never stored.
 *
 * Only what the schema has checked is looked at, in a flat loop: the rest of
 * a refused body (an unknown field's value, nesting of any depth) is never
 * walked, stored or echoed.
 */
export function carriesCredential(
  parsed: z.ZodSafeParseResult<TranscriptRequest>,
  secrets: readonly string[],
): boolean {
  const sought = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const holds = (text: string | undefined) =>
    text !== undefined &&
    (CREDENTIAL_VALUE.test(text) || sought.some((secret) => text.includes(secret)));
  if (!parsed.success) {
    return parsed.error.issues.some((issue) =>
      issue.code === "unrecognized_keys" &&
      issue.keys.some((name) => SECRET_LIKE_NAME.test(name) || holds(name))
    );
  }
  const input = parsed.data;
  if ([input.source, input.channel, input.account_id, input.conversation_id].some(holds)) {
    return true;
  }
  return input.messages.some((message) => holds(message.text) || holds(message.timestamp));
}
