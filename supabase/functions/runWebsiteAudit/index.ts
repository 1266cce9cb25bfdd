import { preloadingRulebook } from "@shared/engine/active_rulebook.ts";
import { functionDeps } from "@shared/function_deps.ts";
import { runWebsiteAudit } from "@shared/handlers/run_website_audit.ts";
import { scanDeps } from "@shared/scanner/scan_deps.ts";

Deno.serve(runWebsiteAudit(preloadingRulebook(functionDeps(scanDeps))));
