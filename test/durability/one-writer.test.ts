import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { REPO_ROOT, TABLETOP_MAIN } from '../harness/targets.js';

/**
 * One process per data directory, for certain: processes racing for one
 * directory, with no LOCK file, an empty one (as while its creator writes the
 * pid), one naming a dead process and one naming a live unrelated process
 * (a pid reused after a reboot), and real servers started together.
 */

const LOCK_MODULE = pathToFileURL(join(REPO_ROOT, 'dist/storage/lsm/data-dir-lock.js')).href;

/**
 * A long-lived process that locks directories on command, so that rounds
 * race processes that are already running. `lock DIR AT` waits (spinning)
 * until the wall clock reaches AT, then tries; it answers `won` or `lost MESSAGE`
 * and keeps a won lock until `release`.
 */
const CONTENDER = `
import { createInterface } from 'node:readline';
const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)});
let held;
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, dir, at] = line.split(' ');
  if (cmd === 'lock') {
    while (Date.now() < Number(at)) {}
    try { held = lockDataDir(dir); console.log('won'); } catch (e) { console.log('lost ' + e.message); }
  } else if (cmd === 'release') {
    held?.release(); held = undefined; console.log('released');
  }
}`;

class Contender {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string) => void)[] = [];

  constructor() {
    this.child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER], { stdio: 'pipe' });
    this.child.stderr.on('data', (c: Buffer) => process.stderr.write(c));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const w = this.waiting.shift();
      if (w) w(line);
      else this.lines.push(line);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  ask(command: string): Promise<string> {
    this.child.stdin.write(`${command}\n`);
    const ready = this.lines.shift();
    return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => this.waiting.push(resolve));
  }

  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    this.child.kill('SIGKILL');
    return closed;
  }
}

type Leftover = 'none' | 'empty' | 'dead pid' | 'live unrelated pid';
const LEFTOVERS: readonly Leftover[] = ['none', 'empty', 'dead pid', 'live unrelated pid'];

/** A pid that no process has now (a child that has exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid ?? 999_999;
}

function scratchDir(leftover: Leftover): string {
  const dir = mkdtempSync(join(tmpdir(), 'tabletop-one-writer-'));
  if (leftover === 'empty') writeFileSync(join(dir, 'LOCK'), '');
  if (leftover === 'dead pid') writeFileSync(join(dir, 'LOCK'), `${deadPid()}\n`);
  // This test process is alive and has nothing to do with the lock.
  if (leftover === 'live unrelated pid') writeFileSync(join(dir, 'LOCK'), `${process.pid}\n`);
  return dir;
}

describe('one process per data directory', () => {
  const contenders: Contender[] = [];
  const dirs: string[] = [];

  beforeAll(() => {
    for (let i = 0; i < 8; i++) contenders.push(new Contender());
  });
  afterAll(async () => {
    await Promise.all(contenders.map((c) => c.kill()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Races `n` contenders for a fresh directory; returns the winners' indexes and the losers' messages. */
  async function race(n: number, leftover: Leftover): Promise<{ winners: number[]; messages: string[]; dir: string }> {
    const dir = scratchDir(leftover);
    dirs.push(dir);
    const at = Date.now() + 30;
    const answers = await Promise.all(contenders.slice(0, n).map((c) => c.ask(`lock ${dir} ${at}`)));
    const winners = answers.flatMap((a, i) => (a === 'won' ? [i] : []));
    const messages = answers.filter((a) => a !== 'won');
    return { winners, messages, dir };
  }

  async function releaseAll(n: number): Promise<void> {
    await Promise.all(contenders.slice(0, n).map((c) => c.ask('release')));
  }

  for (const n of [2, 8]) {
    for (const leftover of LEFTOVERS) {
      it(`${n} processes racing, LOCK file: ${leftover}: exactly one wins, every round; the others name it`, async () => {
        const rounds = n === 2 ? 25 : 10;
        for (let round = 0; round < rounds; round++) {
          const { winners, messages, dir } = await race(n, leftover);
          expect({ round, winners: winners.length }).toEqual({ round, winners: 1 });
          const winner = contenders[winners[0] ?? -1];
          if (winner === undefined) throw new Error('no winner');
          expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toMatch(lockNaming(winner.pid));
          for (const m of messages) {
            expect(m).toMatch(new RegExp(`^lost data directory ${dir} is in use by (process ${winner.pid}|another process) \\(`));
          }
          await releaseAll(n);
          // Released: the file stays (removing it would open a race), empty, and the directory is free.
          expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe('');
        }
      });
    }
  }

  it('a lock dies with its process, whatever kills it: the next process gets the directory at once', async () => {
    const dir = scratchDir('none');
    dirs.push(dir);
    const victim = new Contender();
    try {
      expect(await victim.ask(`lock ${dir} 0`)).toBe('won');
      const other = contenders[0];
      if (other === undefined) throw new Error('no contender');
      expect(await other.ask(`lock ${dir} 0`)).toBe(`lost data directory ${dir} is in use by process ${victim.pid} (${join(dir, 'LOCK')})`);
      await victim.kill();
      // The file still names the dead process; the kernel's lock went with it.
      expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toMatch(lockNaming(victim.pid));
      expect(await other.ask(`lock ${dir} 0`)).toBe('won');
      expect(await other.ask('release')).toBe('released');
    } finally {
      await victim.kill();
    }
  });

  it('names the holder only when the file is surely its (a loser may read what a crashed owner left, before the winner replaces it)', async () => {
    const dir = scratchDir('none');
    dirs.push(dir);
    const holder = new Contender();
    try {
      expect(await holder.ask(`lock ${dir} 0`)).toBe('won');
      const other = contenders[0];
      if (other === undefined) throw new Error('no contender');
      const refusal = (who: string) => `lost data directory ${dir} is in use by ${who} (${join(dir, 'LOCK')})`;
      const held = readFileSync(join(dir, 'LOCK'), 'utf8');
      // A live process that does not hold the lock (the pid-reuse case), with and without a start mark.
      for (const stale of [`${process.pid}\n`, `${process.pid} 1\n`]) {
        writeFileSync(join(dir, 'LOCK'), stale);
        expect(await other.ask(`lock ${dir} 0`)).toBe(refusal(process.platform === 'linux' ? 'another process' : `process ${process.pid}`));
      }
      writeFileSync(join(dir, 'LOCK'), held);
      expect(await other.ask(`lock ${dir} 0`)).toBe(refusal(`process ${holder.pid}`));
    } finally {
      await holder.kill();
    }
  });
});

describe('real servers started together on one data directory', () => {
  /** Starts `tabletop serve` on `dir`; resolves when it listens ('served') or exits (its stderr). */
  function serve(dir: string): { done: Promise<{ served: boolean; err: string }>; kill(): Promise<void> } {
    const child = spawn(
      process.execPath,
      [...SERVER_NODE_FLAGS, TABLETOP_MAIN, 'serve', '--port', '0', '--http-port', '0', '--data-dir', dir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const done = new Promise<{ served: boolean; err: string }>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (/export BIGTABLE_EMULATOR_HOST=/.test(out)) resolve({ served: true, err });
      });
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      void closed.then(() => resolve({ served: false, err }));
    });
    return {
      done,
      kill: () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        return closed;
      },
    };
  }

  for (const [n, leftover] of [
    [2, 'dead pid'],
    [8, 'dead pid'],
    [8, 'none'],
  ] as const) {
    it(
      `${n} servers, LOCK file: ${leftover}: exactly one serves, the others stop, naming it when the LOCK surely is its`,
      { timeout: 120_000 },
      async () => {
        const dir = scratchDir(leftover);
        try {
          const servers = Array.from({ length: n }, () => serve(dir));
          try {
            const results = await Promise.all(servers.map((s) => s.done));
            expect(results.filter((r) => r.served)).toHaveLength(1);
            for (const r of results.filter((x) => !x.served))
              expect(r.err).toMatch(/data directory .* is in use by (process \d+|another process)/);
          } finally {
            await Promise.all(servers.map((s) => s.kill()));
          }
          // The winner was killed with SIGKILL: the next server starts on the directory at once.
          const next = serve(dir);
          try {
            expect(await next.done).toMatchObject({ served: true });
          } finally {
            await next.kill();
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  }
});

/** What a held LOCK holds: the owner's pid, and on Linux when it started (clock ticks after boot). */
function lockNaming(pid: number): RegExp {
  return new RegExp(`^${pid}${process.platform === 'linux' ? ' \\d+' : ''}\n$`);
}
