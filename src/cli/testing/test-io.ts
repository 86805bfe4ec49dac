import { EventEmitter } from 'node:events';
import type { CliIo } from '../cli-io.js';

/** A CliIo that records output and exit requests; `signals.emit('signal', name)` delivers a signal; `env` is its environment. */
export function testIo(execArgv?: readonly string[], env?: Readonly<Record<string, string | undefined>>) {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const exits: number[] = [];
  const cli: CliIo = {
    stdout: (l) => void out.push(l),
    stderr: (l) => void err.push(l),
    onSignal: (h) => {
      signals.on('signal', h);
      return () => signals.off('signal', h);
    },
    exitNow: (c) => void exits.push(c),
    ...(execArgv === undefined ? {} : { execArgv }),
    ...(env === undefined ? {} : { env }),
  };
  return { cli, out, err, signals, exits };
}
