import type { LogFields, Logger } from '../log.js';

export { LOG_LEVELS, type LogFields, type LogLevel, type Logger } from '../log.js';

/** Writes to stderr (stdout is kept for the lines that tools parse, such as the export line of `serve`). */
export const consoleLogger: Logger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(`warning: ${m}`),
  error: (m) => console.error(`error: ${m}`),
};

/** A logger that keeps messages (and their fields), for tests. */
export function memoryLogger(): Logger & { readonly lines: string[]; readonly records: { level: string; message: string; fields: LogFields | undefined }[] } {
  const lines: string[] = [];
  const records: { level: string; message: string; fields: LogFields | undefined }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => {
    lines.push(`${level}: ${message}`);
    records.push({ level, message, fields });
  };
  return { lines, records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
