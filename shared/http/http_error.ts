/**
 * An error that carries its HTTP status and a machine-readable code. Handlers
 * throw it from anywhere; one renderer per endpoint turns it into that
 * endpoint's envelope (contract section 7).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "HttpError";
  }
}
