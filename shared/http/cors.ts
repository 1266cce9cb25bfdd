/** Options of {@linkcode cors}. */
export interface CorsOptions {
  /** Allowed origins; `["*"]` allows any. */
  origins: readonly string[];
}

/**
 * Request headers a browser caller may send: the JSON content type, and what
 * supabase-js's FunctionsClient adds. Never a credential header of this
 * service (`x-api-key`, `x-webhook-secret`): only the anonymous operation is
 * callable from a browser.
 */
const ALLOWED_HEADERS = "authorization, x-client-info, apikey, content-type";

/**
 * Builds the CORS headers for a request: the preflight answer and the headers
 * every response (errors included) carries. Used only by operations that take
 * no credential (EndpointSpec.browser).
 */
export function cors(options: CorsOptions): (req: Request) => Record<string, string> {
  const any = options.origins.includes("*");
  return (req) => {
    const origin = req.headers.get("origin");
    const allow = any ? "*" : origin !== null && options.origins.includes(origin) ? origin : null;
    if (allow === null) return { "Vary": "Origin" };
    return {
      "Access-Control-Allow-Origin": allow,
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": ALLOWED_HEADERS,
      "Access-Control-Expose-Headers": "x-request-id, retry-after",
      "Access-Control-Max-Age": "86400",
      ...(any ? {} : { "Vary": "Origin" }),
    };
  };
}
