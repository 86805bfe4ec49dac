import type { Readable, Writable } from 'node:stream';

/** The CLI's outside world (output streams, signals, environment), injected so that tests can drive runCli (cli.ts). */
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Subscribes to SIGINT / SIGTERM; returns an unsubscribe function. */
  readonly onSignal: (handler: (signal: string) => void) => () => void;
  /** Called on a second signal while stopping: give up and exit now. */
  readonly exitNow: (code: number) => void;
  /** The Node options the process was started with (process.execArgv); when given, `serve` names missing SERVER_NODE_FLAGS. */
  readonly execArgv?: readonly string[];
  /** The environment (TABLETOP_* settings); none when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Byte streams for data commands (`export` to stdout, `import -` from stdin); the process's own when absent. */
  readonly data?: { readonly stdout: Writable; readonly stdin: Readable };
  /** Asks the user a question on the terminal and resolves with the answer; absent when stdin is not interactive. */
  readonly ask?: (question: string) => Promise<string>;
}
