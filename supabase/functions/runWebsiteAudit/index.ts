import { functionDeps } from "@shared/function_deps.ts";
import { runWebsiteAudit } from "@shared/handlers/run_website_audit.ts";

Deno.serve(runWebsiteAudit(functionDeps()));
