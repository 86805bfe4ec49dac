#!/usr/bin/env -S node --initial-old-space-size=128
import { createInterface } from 'node:readline/promises';
import { runCli } from './cli.js';

/**
 * The `tabletop` executable: the CLI wired to the real process. Its first
 * line passes SERVER_NODE_FLAGS (node-flags.ts; a test keeps the two equal).
 */
const code = await runCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(line.endsWith('\n') ? line : line + '\n'),
  stderr: (line) => process.stderr.write(line.endsWith('\n') ? line : line + '\n'),
  onSignal: (handler) => {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
  exitNow: (c) => process.exit(c),
  execArgv: process.execArgv,
  env: process.env,
  ...(process.stdin.isTTY ? { ask } : {}),
});
process.exit(code);

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
