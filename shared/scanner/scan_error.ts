import { HttpError } from "../http/http_error.ts";

/**
 * What went wrong with a scan fetch, by the contract status it maps to
 * (interface.md 7.3):
 *
 * - `bad_request` (400): the caller's URL is malformed;
 * - `policy_refused` (403): the network-safety policy refuses the target;
 * - `robots_refused` (403): robots rules disallow the URL;
 * - `unsupported_content_type` (415): the page is not HTML;
 * - `unreachable` (502): DNS failure, no connection, TLS failure, timeout, a
 *   5xx from the target, a broken response, too many redirects;
 * - `internal` (500): anything unexpected; its message says nothing more.
 */
export type ScanErrorKind =
  | "bad_request"
  | "policy_refused"
  | "robots_refused"
  | "unsupported_content_type"
  | "unreachable"
  | "internal";

const STATUS: Record<ScanErrorKind, number> = {
  bad_request: 400,
  policy_refused: 403,
  robots_refused: 403,
  unsupported_content_type: 415,
  unreachable: 502,
  internal: 500,
};

/**
 * A scan failure. It is an {@linkcode HttpError} whose `status` is the
 * contract status of its kind and whose `code` is the kind, so a handler can
 * let it propagate to the operation's renderer. `reason` is a stable
 * machine-readable detail (`private_address`, `timeout`, `tls`, ...) for logs
 * and tests.
 *
 * Messages are safe to show to the caller: they never contain a resolved
 * address, a host name, a URL or any part of a response body.
 */
export class ScanError extends HttpError {
  constructor(
    readonly kind: ScanErrorKind,
    readonly reason: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(STATUS[kind], kind, message, { cause: options?.cause });
    this.name = "ScanError";
  }
}

/** Wraps anything that is not already a ScanError as an `internal` one, keeping it as the cause. */
export function asScanError(error: unknown): ScanError {
  if (error instanceof ScanError) return error;
  return new ScanError("internal", "unexpected", "Internal error", { cause: error });
}
