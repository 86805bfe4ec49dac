import { LOG_LEVELS, type LogFields, type LogLevel, type Logger } from '../server/logger.js';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogOutputOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Receives each record as one line (with its newline for JSON). */
  readonly write: (line: string) => void;
  /** The clock of the text format's timestamps (tests fix it). */
  readonly now?: () => Date;
}

/**
 * The logger of `tabletop serve`.
 *
 * - `json`: one JSON object per line, written by pino (level, time, pid,
 *   hostname, msg, and the record's fields as properties), for log shippers.
 * - `text`: for people: `2026-11-26T12:00:00.000Z INFO  message`; the figures
 *   are in the message, so fields are left out.
 *
 * Records below `level` are dropped before any formatting. pino is loaded only
 * for the JSON format (importing it costs 20-40 ms of every start).
 */
export async function createLogOutput(opts: LogOutputOptions): Promise<Logger> {
  return opts.format === 'json' ? jsonLogger(opts) : textLogger(opts);
}

async function jsonLogger(opts: LogOutputOptions): Promise<Logger> {
  const { pino } = await import('pino');
  const log = pino(
    {
      level: opts.level,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names, not pino's numbers: "level":"info" is what log shippers match on.
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (s: string) => opts.write(s) },
  );
  const at = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (fields === undefined) log[level](message);
    else log[level](fields, message);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function textLogger(opts: LogOutputOptions): Logger {
  const now = opts.now ?? (() => new Date());
  const min = LOG_LEVELS.indexOf(opts.level);
  const at = (level: Exclude<LogLevel, 'silent'>) => {
    if (LOG_LEVELS.indexOf(level) < min) return () => undefined;
    const tag = level.toUpperCase().padEnd(5);
    return (message: string) => opts.write(`${now().toISOString()} ${tag} ${message}`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
