import { readingRulebookAhead } from "@shared/db/rulebooks.ts";
import { functionDeps } from "@shared/function_deps.ts";
import { runWebsiteAudit } from "@shared/handlers/run_website_audit.ts";
import { scanDeps } from "@shared/scanner/scan_deps.ts";

Deno.serve(runWebsiteAudit(readingRulebookAhead(functionDeps(scanDeps))));
