import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Target } from './targets.js';
import { INSTANCE, PROJECT } from './node-client.js';

export interface CbtResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code (non-zero when cbt failed). */
  readonly code: number;
}

export interface CbtOptions {
  readonly project?: string;
  readonly instance?: string;
  /** Milliseconds before cbt is killed. */
  readonly timeoutMs?: number;
}

// An empty HOME keeps a developer's ~/.cbtrc (project, creds, endpoints) out of the tests.
const HOME = path.join(os.tmpdir(), `tabletop-cbt-home-${process.pid}`);
mkdirSync(HOME, { recursive: true });

/**
 * Runs `cbt -project p -instance i ARGS...` against `target` (through
 * BIGTABLE_EMULATOR_HOST, with TZ=UTC so timestamps print the same
 * everywhere). Never throws for a non-zero exit: the code is in the result.
 */
export function cbt(target: Target, ...args: string[]): Promise<CbtResult> {
  return cbtWith(target, {}, ...args);
}

export function cbtWith(target: Target, options: CbtOptions, ...args: string[]): Promise<CbtResult> {
  const argv = ['-project', options.project ?? PROJECT, '-instance', options.instance ?? INSTANCE, ...args];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME,
    TZ: 'UTC',
    BIGTABLE_EMULATOR_HOST: target.address,
    // With no credentials configured, cbt runs `gcloud config config-helper`
    // (a Python start-up, ~350 ms) on every call. Naming a credentials file
    // skips that; against an emulator host the client never opens it.
    GOOGLE_APPLICATION_CREDENTIALS: path.join(HOME, 'no-credentials.json'),
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.env['CBT'] ?? 'cbt',
      argv,
      { env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          const why = error.signal ? `killed by ${error.signal} (timeout?)` : error.message;
          reject(new Error(`could not run cbt ${argv.join(' ')}: ${why}\n${stderr}`));
          return;
        }
        resolve({ stdout, stderr, code: error ? Number(error.code) : 0 });
      },
    );
  });
}

/**
 * cbt's stderr without start-up chatter (such as "-creds flag unset, will use
 * gcloud credential") and with the log timestamp prefix removed from each line.
 */
export function cbtErrors(stderr: string): string {
  return stderr
    .split('\n')
    .map((line) => line.replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ''))
    .filter((line) => line !== '' && !line.startsWith('-creds flag unset'))
    .join('\n');
}
