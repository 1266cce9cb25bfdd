import type { Logger } from "../log/logger.ts";
import type { Handler } from "./endpoint.ts";
import { jsonResponse } from "./json_response.ts";

const ROUTE = /^\/functions\/([A-Za-z]+)$/;

/**
 * Serves the functions exactly as the contract addresses them: `{base_url}`
 * ends in `/functions` and every operation is `POST {base_url}/<name>`. There
 * is no version segment and no rewriting: any other path (`/functions/v1/…`,
 * `/v1/compliance-audit`, a trailing segment) is a 404 `{ error }` and a log
 * line. The path itself is never logged: a caller may have put a key in it.
 */
export function functionRouter(functions: Record<string, Handler>, logger: Logger): Handler {
  const routes = new Map(Object.entries(functions));
  return (req, info) => {
    const match = ROUTE.exec(new URL(req.url).pathname);
    const handler = match === null ? undefined : routes.get(match[1]);
    if (handler !== undefined) return handler(req, info);
    logger.log("info", "no route", { method: req.method, status: 404 });
    return Promise.resolve(jsonResponse(
      {
        error:
          "Not found: operations are POST <base_url>/<name>, and <base_url> ends in /functions",
      },
      404,
    ));
  };
}
