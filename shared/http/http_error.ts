/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Headers the response carries, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** What caused it; logged by kind, never answered. */
  cause?: unknown;
}

/**
 * An error that carries its HTTP status and a machine-readable code. Handlers
 * throw it from anywhere; the endpoint skeleton renders it once, in the
 * endpoint's own envelope (contract section 7).
 *
 * @example
 * ```ts
 * throw new HttpError(429, "rate_limited", "Too many requests", {
 *   headers: { "Retry-After": "12" },
 * });
 * ```
 */
export class HttpError extends Error {
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "HttpError";
    this.headers = options.headers ?? {};
  }
}
