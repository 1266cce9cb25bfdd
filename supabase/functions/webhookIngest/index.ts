import { preloadingRulebook } from "@shared/engine/active_rulebook.ts";
import { functionDeps } from "@shared/function_deps.ts";
import { webhookIngest } from "@shared/handlers/webhook_ingest.ts";

Deno.serve(webhookIngest(preloadingRulebook(functionDeps())));
