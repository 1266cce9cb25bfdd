import { z } from "zod";

/**
 * Contract 7.3: the runWebsiteAudit error envelope. `quota` appears only
 * where the contract's operation reports one.
 */
export const WebsiteAuditErrorEnvelope = z.strictObject({
  error: z.string(),
  quota: z.strictObject({
    plan: z.string(),
    used: z.number().int(),
    limit: z.number().int(),
  }).optional(),
});
export type WebsiteAuditErrorEnvelope = z.infer<typeof WebsiteAuditErrorEnvelope>;
