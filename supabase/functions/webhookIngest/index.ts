import { readingRulebookAhead } from "@shared/db/rulebooks.ts";
import { functionDeps } from "@shared/function_deps.ts";

// The rulebook is read while the handler and the engine load.
const deps = readingRulebookAhead(functionDeps());
const { webhookIngest } = await import("@shared/handlers/webhook_ingest.ts");
Deno.serve(webhookIngest(deps));
