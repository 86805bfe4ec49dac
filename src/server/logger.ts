import type { Logger } from '../log.js';

export { LOG_LEVELS, type LogFields, type LogLevel, type Logger } from '../log.js';

/** Writes to stderr (stdout is kept for the lines that tools parse, such as the export line of `serve`). */
export const consoleLogger: Logger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(`warning: ${m}`),
  error: (m) => console.error(`error: ${m}`),
};
