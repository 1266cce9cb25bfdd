/** Log levels in increasing severity. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = typeof LOG_LEVELS[number];

/** Fields of one log line. Never put a key, secret, content or transcript here. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** A structured logger writing one JSON object per line. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: LogFields): void;
}

/**
 * A JSON-lines logger. `write` defaults to stdout (warn and error to stderr),
 * tests pass their own to inspect what would be logged.
 */
export function createLogger(
  options: { level?: LogLevel; write?: (line: string, level: LogLevel) => void } = {},
): Logger {
  const min = LOG_LEVELS.indexOf(options.level ?? "info");
  const write = options.write ?? ((line, level) => {
    if (level === "warn" || level === "error") console.error(line);
    else console.log(line);
  });
  return {
    log(level, msg, fields = {}) {
      if (LOG_LEVELS.indexOf(level) < min) return;
      write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }), level);
    },
  };
}
