import { cors } from "../http/cors.ts";
import { HttpError } from "../http/http_error.ts";
import { type Handler, operation, type OperationContext } from "../http/operation.ts";
import type { ServiceDeps } from "./deps.ts";

/**
 * An operation of the contract whose issue has not landed yet: it answers 501
 * in its own envelope, through the same wrapper as the built ones (CORS,
 * request id, log line), so clients and the route table already see it.
 */
export function notBuilt(
  name: string,
  deps: ServiceDeps,
  render: (error: HttpError, ctx: OperationContext) => Response,
): Handler {
  return operation({
    name,
    logger: deps.logger,
    cors: cors({ origins: deps.corsOrigins }),
    trustedProxyHops: deps.trustedProxyHops,
    render,
    unexpected: () => new HttpError(500, "internal", "Internal error"),
  }, () => {
    throw new HttpError(501, "not_implemented", `${name} is not available yet`);
  });
}
