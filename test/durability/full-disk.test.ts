import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { failureOf, keysOf, startAnswering } from './answers.js';
import type { DurableServer } from './durable-server.js';

/**
 * A real server on a small tmpfs that another process fills to the brim
 * (docs/reliability.md, "A full disk refuses writes, not reads, and not for
 * good"): writes get RESOURCE_EXHAUSTED naming the disk, reads go on, a
 * restart on the still-full disk serves reads, and writes resume by
 * themselves once the space is given back; nothing acknowledged is lost.
 * Mounting needs root (CI runs as root, as `npm test`'s prerequisites do).
 */
describe('a real server on a tmpfs filled to the brim', () => {
  const mount = mkdtempSync(path.join(tmpdir(), 'tabletop-tmpfs-'));
  const dataDir = path.join(mount, 'data');
  const ballast = path.join(mount, 'ballast');
  const args = ['--min-free-disk', '2MiB', '--memtable-size', '256KiB'];
  const servers: DurableServer[] = [];
  const clients: Bigtable[] = [];

  beforeAll(() => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mount], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`this test mounts a 24 MiB tmpfs and needs root to: ${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`);
    }
  });

  afterAll(async () => {
    for (const c of clients) void c.close();
    for (const s of servers) await s.kill9();
    execFileSync('umount', ['-l', mount]);
    rmdirSync(mount);
  });

  const start = async (): Promise<Table> => (await startAnswering({ dataDir, args }, { servers, clients })).table;

  const value = (key: string): string => `${key}:`.padEnd(1024, 'x');
  const write = (table: Table, keys: readonly string[]): Promise<unknown> =>
    table.insert(keys.map((key) => ({ key, data: { cf: { q: { value: value(key), timestamp: new Date(1000) } } } })));

  /** Fills the file system with a ballast file until it takes no more (another process filling the disk). */
  const fill = (): void => {
    const fd = openSync(ballast, 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    } finally {
      closeSync(fd);
    }
  };

  const acknowledged: string[] = [];
  let restarted: Table | undefined;

  it('refuses writes with RESOURCE_EXHAUSTED once the disk is full, and keeps serving reads', async () => {
    const table = await start();
    await table.create({ families: ['cf'] });
    // ~2 MiB in batches of 100 rows: some flushed to SSTables (256 KiB memtables), the rest in the commit log.
    for (let b = 0; b < 20; b++) {
      const keys = Array.from({ length: 100 }, (_, i) => `row-${String(b * 100 + i).padStart(5, '0')}`);
      await write(table, keys);
      acknowledged.push(...keys);
    }
    fill();
    // The server measures the free space every second.
    await new Promise((r) => setTimeout(r, 1500));
    const refused = await failureOf(write(table, ['refused-1']));
    expect(refused?.code).toBe(8);
    expect(refused?.message).toMatch(new RegExp(`the disk of the data directory ${dataDir} is full`));
    expect(await keysOf(table)).toEqual(acknowledged);
    expect(servers[0]!.output()).toMatch(/WARN +the disk of .* is full/);
  });

  it('restarted on the still-full disk, serves reads and refuses writes', async () => {
    await servers[0]!.kill9();
    const table = await start();
    restarted = table;
    expect(await keysOf(table)).toEqual(acknowledged);
    const refused = await failureOf(write(table, ['refused-2']));
    expect(refused?.code).toBe(8);
    expect(refused?.message).toMatch(/full/);
    expect(servers[1]!.output()).toMatch(/WARN +the disk of .* is full .*: serving reads only/);
  });

  it('takes writes again by itself once the space is given back, and nothing acknowledged is lost', async () => {
    const table = restarted!;
    unlinkSync(ballast);
    // The first try of the start-up writes comes 1 s after the start, then 2, 4, ... s apart.
    const deadline = Date.now() + 40_000;
    for (;;) {
      const e = await failureOf(write(table, ['after-space']));
      if (e === undefined) break;
      expect(e.code).toBe(8);
      if (Date.now() > deadline) throw new Error(`writes were still refused 40 s after the space came back: ${e.message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(servers[1]!.output()).toMatch(/INFO +the disk of .* has room again: the start-up writes are done/);
    await servers[1]!.kill9();
    const again = await start();
    expect(await keysOf(again)).toEqual(['after-space', ...acknowledged]);
  });
});
