import type { WebsiteAuditErrorEnvelope } from "../contract/website_audit.ts";
import type { EndpointSpec, Handler } from "../http/endpoint.ts";
import type { ServiceDeps } from "./deps.ts";
import { notBuilt } from "./not_built.ts";

/** Contract 7.3: `{ error, quota? }`; 500 on an internal error. */
export const RUN_WEBSITE_AUDIT_ENDPOINT = {
  name: "runWebsiteAudit",
  envelope: (error) => ({ error: error.message }) satisfies WebsiteAuditErrorEnvelope,
  unavailable: { status: 500, code: "internal", message: "Internal error" },
} satisfies EndpointSpec<WebsiteAuditErrorEnvelope>;

/** runWebsiteAudit (contract 4.3): not built yet; answers 501 in its envelope. */
export function runWebsiteAudit(deps: ServiceDeps): Handler {
  return notBuilt(RUN_WEBSITE_AUDIT_ENDPOINT, deps);
}
