/** Where the server reports what it does. Injected so that tests and embedders can capture or silence it. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes to stderr (stdout is kept for the lines that tools parse, such as the export line of `serve`). */
export const consoleLogger: Logger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(`warning: ${m}`),
  error: (m) => console.error(`error: ${m}`),
};

export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** A logger that keeps messages, for tests. */
export function memoryLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info: ${m}`),
    warn: (m) => void lines.push(`warn: ${m}`),
    error: (m) => void lines.push(`error: ${m}`),
  };
}
