import { jsonResponse } from "../http/json_response.ts";
import type { Handler } from "../http/operation.ts";
import type { ServiceDeps } from "./deps.ts";
import { notBuilt } from "./not_built.ts";

/** runWebsiteAudit (contract 4.3): not built yet; answers 501 in its envelope `{ error }`. */
export function runWebsiteAudit(deps: ServiceDeps): Handler {
  return notBuilt(
    "runWebsiteAudit",
    deps,
    (error) => jsonResponse({ error: error.message }, error.status),
  );
}
