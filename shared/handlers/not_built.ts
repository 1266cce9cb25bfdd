import { endpoint, type EndpointSpec, type Handler } from "../http/endpoint.ts";
import { HttpError } from "../http/http_error.ts";
import type { ServiceDeps } from "./deps.ts";

/**
 * An operation of the contract whose issue has not landed yet: it answers 501
 * in its own envelope, through the same skeleton as the built ones (CORS,
 * request id, log line at info: an unbuilt operation is not an error), so
 * clients and the route table already see it.
 */
export function notBuilt<Envelope>(spec: EndpointSpec<Envelope>, deps: ServiceDeps): Handler {
  return endpoint(spec, deps, () => {
    throw new HttpError(501, "not_implemented", `${spec.name} is not available yet`);
  });
}
