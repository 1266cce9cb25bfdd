/**
 * The database deadlines every remote driver keeps (README, Configuration):
 * a connection must be open within DB_CONNECT_TIMEOUT_MS, a statement must
 * finish within DB_STATEMENT_TIMEOUT_MS (the server's `statement_timeout`),
 * and one call, waiting for a pooled connection included, is abandoned on the
 * client side after the sum of both plus {@linkcode DEADLINE_GRACE_MS}, so a
 * socket that swallows packets cannot hold a request.
 */

/** Default DB_CONNECT_TIMEOUT_MS. */
export const DEFAULT_DB_CONNECT_TIMEOUT_MS = 3000;
/** Default DB_STATEMENT_TIMEOUT_MS. */
export const DEFAULT_DB_STATEMENT_TIMEOUT_MS = 5000;
/** What the client adds to connect + statement before it gives up on a call. */
export const DEADLINE_GRACE_MS = 1000;

/** The database deadlines of a remote driver. */
export interface DbDeadlines {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/** The client-side deadline of one call. */
export function callDeadlineMs(deadlines: DbDeadlines): number {
  return deadlines.connectTimeoutMs + deadlines.statementTimeoutMs + DEADLINE_GRACE_MS;
}
