import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { cbt, cbtErrors } from './cbt.js';
import { spawnGuarded, stopGuarded } from './guarded-child.js';
import { uniqueTableId } from './names.js';
import { nodeClient, INSTANCE } from './node-client.js';
import { selectedTargets, startEmulator, startTarget, capture, waitForOutput } from './targets.js';

function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Whether `pid` is a live process: a zombie (killed, not yet reaped by whoever adopted it) counts as dead. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('guarded children', () => {
  it('kill the server when the pipe from the test process closes, even if the watchdog itself was killed', async () => {
    const child = spawnGuarded('/bin/sh', ['-c', 'echo $$; exec sleep 300']);
    const tail = capture(child);
    const m = await waitForOutput(child, tail, 'sleeper', /^(\d+)\n/);
    const pid = Number(m[1]);
    expect(alive(pid)).toBe(true);
    // The watchdog protects once it has forked its watcher, a moment after the server starts:
    // wait for both of its children (on a busy machine the server can print before the fork).
    const children = (): number =>
      readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter((x) => x !== '').length;
    expect(await eventually(() => children() >= 2)).toBe(true);
    child.kill('SIGKILL'); // the watchdog shell dies first, as if the worker were SIGKILLed
    child.stdin.destroy(); // and the pipe closes, as it does when the test process dies
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('report the output of a server that dies before it is ready', async () => {
    const child = spawnGuarded('/bin/sh', ['-c', 'echo "bad flag --frobnicate" >&2; exit 3']);
    const tail = capture(child);
    await expect(waitForOutput(child, tail, 'broken server', /ready/)).rejects.toThrow(
      /broken server exited \(code 3.*\n.*bad flag --frobnicate/s,
    );
    await stopGuarded(child);
  });
});

describe('emulator target', () => {
  it('starts on a free port, serves cbt, and stops', async () => {
    const target = await startEmulator();
    try {
      expect(target.address).toBe(`127.0.0.1:${target.port}`);
      expect(await portOpen(target.port)).toBe(true);
      const id = uniqueTableId('harness');
      const created = await cbt(target, 'createtable', id);
      expect(cbtErrors(created.stderr)).toBe('');
      expect(created.code).toBe(0);
      const ls = await cbt(target, 'ls');
      expect(ls.stdout.split('\n')).toContain(id);
    } finally {
      await target.stop();
    }
    expect(await portOpen(target.port)).toBe(false);
    await target.stop(); // idempotent
  });

  it('gives the Node client an endpoint that wins over BIGTABLE_EMULATOR_HOST', async () => {
    const target = await startEmulator();
    const saved = process.env['BIGTABLE_EMULATOR_HOST'];
    process.env['BIGTABLE_EMULATOR_HOST'] = '127.0.0.1:9'; // discard port: nothing listens there
    const client = nodeClient(target);
    try {
      const table = client.instance(INSTANCE).table(uniqueTableId('endpoint'));
      await table.create({ families: ['cf'] });
      const [exists] = await table.exists();
      expect(exists).toBe(true);
    } finally {
      if (saved === undefined) delete process.env['BIGTABLE_EMULATOR_HOST'];
      else process.env['BIGTABLE_EMULATOR_HOST'] = saved;
      await client.close();
      await target.stop();
    }
  });
});

describe('unique table ids', () => {
  it('are valid Bigtable table ids and never repeat', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(uniqueTableId('some prefix/with:odd chars that is rather long'));
    expect(ids.size).toBe(1000);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(50);
      expect(id).toMatch(/^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/);
    }
  });
});

describe.each(selectedTargets())('%s target', (kind) => {
  it('starts, accepts connections at its reported address, and stops', async () => {
    const target = await startTarget(kind);
    expect(target.kind).toBe(kind);
    expect(await portOpen(target.port, target.host)).toBe(true);
    await target.stop();
    expect(await portOpen(target.port, target.host)).toBe(false);
  });
});
