import { jsonResponse } from "./json_response.ts";
import type { Handler } from "./endpoint.ts";

/**
 * Serves the functions as Supabase does: `POST /functions/<name>` and the
 * alternate base `/functions/v1/<name>`. There is no rewriting: any other
 * path, `/v1/compliance-audit` included, is a 404 `{ error }`.
 */
export function functionRouter(functions: Record<string, Handler>): Handler {
  const routes = new Map(Object.entries(functions));
  return (req, info) => {
    const path = new URL(req.url).pathname;
    const match = /^\/functions\/(?:v1\/)?([A-Za-z]+)\/?$/.exec(path);
    const handler = match === null ? undefined : routes.get(match[1]);
    if (handler === undefined) {
      return Promise.resolve(jsonResponse({ error: "Not found" }, 404));
    }
    return handler(req, info);
  };
}
