import { readingRulebookAhead } from "@shared/db/rulebooks.ts";
import { functionDeps } from "@shared/function_deps.ts";

// The rulebook is read while the handler and the engine load.
const deps = readingRulebookAhead(functionDeps());
const { complianceAudit } = await import("@shared/handlers/compliance_audit.ts");
Deno.serve(complianceAudit(deps));
