import { jsonResponse } from "../http/json_response.ts";
import { elapsedMs, type Handler } from "../http/operation.ts";
import type { ServiceDeps } from "./deps.ts";
import { notBuilt } from "./not_built.ts";

/**
 * webhookIngest (contract 4.4): not built yet; answers 501 in its envelope
 * `{ success: false, error, processing_ms }`.
 */
export function webhookIngest(deps: ServiceDeps): Handler {
  return notBuilt("webhookIngest", deps, (error, ctx) =>
    jsonResponse({
      success: false,
      error: error.message,
      processing_ms: elapsedMs(ctx),
    }, error.status));
}
