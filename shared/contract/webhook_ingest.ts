import { z } from "zod";

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
