/**
 * Where tabletop reports what it does (every layer logs through this one
 * interface, as every layer reads src/config.ts). Injected so that tests and
 * embedders can capture or silence it; `tabletop serve` gives one with levels
 * and a text or JSON format (src/cli/log-output.ts).
 *
 * `message` is a sentence a person reads, with the figures in it; `fields`
 * carry the same figures for machines (the JSON format writes them as
 * properties of the log record, the text format leaves them out).
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** Detail nobody needs day to day (optional: loggers without it drop such messages). */
  debug?(message: string, fields?: LogFields): void;
}

/** Levels from the most to the least verbose; `silent` logs nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
