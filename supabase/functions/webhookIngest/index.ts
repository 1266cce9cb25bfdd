import { functionDeps } from "@shared/function_deps.ts";
import { webhookIngest } from "@shared/handlers/webhook_ingest.ts";

Deno.serve(webhookIngest(functionDeps()));
