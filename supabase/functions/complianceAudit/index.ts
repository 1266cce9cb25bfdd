import { preloadingRulebook } from "@shared/engine/active_rulebook.ts";
import { functionDeps } from "@shared/function_deps.ts";
import { complianceAudit } from "@shared/handlers/compliance_audit.ts";

Deno.serve(complianceAudit(preloadingRulebook(functionDeps())));
