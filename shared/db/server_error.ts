/**
 * The message of a server-side SQL error, safe to log: PostgreSQL quotes the
 * offending input in data-exception messages (`invalid input syntax for type
 * uuid: "..."`), which would put an argument value in a DbError. Those
 * messages are replaced; the messages our RPCs raise never contain quotes.
 */
export function safeServerMessage(code: string | undefined, message: string): string {
  if (code !== undefined && code.startsWith("22") && message.includes('"')) {
    return `Invalid argument value (SQLSTATE ${code})`;
  }
  return message;
}
