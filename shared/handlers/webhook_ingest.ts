import type { WebhookErrorEnvelope } from "../contract/webhook_ingest.ts";
import type { EndpointSpec, Handler } from "../http/endpoint.ts";
import type { ServiceDeps } from "./deps.ts";
import { notBuilt } from "./not_built.ts";

/**
 * Contract 7.4: `{ success: false, error, processing_ms }`, sanitized; 503 when
 * the limiter or evaluation is unavailable.
 */
export const WEBHOOK_INGEST_ENDPOINT = {
  name: "webhookIngest",
  envelope: (error, ctx) =>
    ({
      success: false,
      error: error.message,
      processing_ms: ctx.elapsedMs(),
    }) satisfies WebhookErrorEnvelope,
  unavailable: { status: 503, code: "service_unavailable", message: "Service unavailable" },
} satisfies EndpointSpec<WebhookErrorEnvelope>;

/** webhookIngest (contract 4.4): not built yet; answers 501 in its envelope. */
export function webhookIngest(deps: ServiceDeps): Handler {
  return notBuilt(WEBHOOK_INGEST_ENDPOINT, deps);
}
