import type { LogFields, Logger } from '../log.js';

/** A logger that keeps messages (and their fields), for tests of any layer. */
export function memoryLogger(): Logger & {
  readonly lines: string[];
  readonly records: { level: string; message: string; fields: LogFields | undefined }[];
} {
  const lines: string[] = [];
  const records: { level: string; message: string; fields: LogFields | undefined }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => {
    lines.push(`${level}: ${message}`);
    records.push({ level, message, fields });
  };
  return { lines, records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
