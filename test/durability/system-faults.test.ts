import { readdirSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { failureOf, keysOf, startAnswering } from './answers.js';
import { walFiles } from './data-dir.js';
import type { DurableServer } from './durable-server.js';
import { type Strace, attachStrace } from './strace-faults.js';

/**
 * A real server meeting a disk that fails, end to end: `strace --inject`
 * replaces the kernel's answer to the server's own system calls on its own
 * files (docs/reliability.md). Each case: what the clients see while the
 * fault lasts, that the server goes on (reads served, said in its log), and
 * what a restart recovers: every acknowledged write.
 */
describe('system faults injected with strace into a running server', () => {
  const dirs: string[] = [];
  const servers: DurableServer[] = [];
  const clients: Bigtable[] = [];
  const traces: Strace[] = [];

  afterEach(async () => {
    for (const t of traces.splice(0)) await t.detach();
    for (const c of clients.splice(0)) void c.close();
    for (const s of servers.splice(0)) await s.kill9();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const start = (dataDir: string, args: readonly string[] = []): Promise<{ server: DurableServer; table: Table }> =>
    startAnswering({ dataDir, args }, { servers, clients });

  const freshDir = (): string => {
    const d = mkdtempSync(path.join(tmpdir(), 'tabletop-strace-'));
    dirs.push(d);
    return d;
  };

  const put = (table: Table, key: string, value = `value of ${key}`): Promise<unknown> =>
    table.insert([{ key, data: { cf: { q: { value, timestamp: new Date(1000) } } } }]);

  /** The write was refused with UNAVAILABLE. */
  const refused = async (write: Promise<unknown>, message: RegExp = /./): Promise<void> => {
    const status = await failureOf(write);
    expect(status, 'the write should have failed').toBeDefined();
    expect(status?.code).toBe(14);
    expect(status?.message).toMatch(message);
  };

  const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `row-${String(i).padStart(4, '0')}`);

  const strace = async (server: DurableServer, args: readonly string[]): Promise<Strace> => {
    const t = await attachStrace(server.pid, args);
    traces.push(t);
    return t;
  };

  const cases = [
    {
      what: 'EIO on the fdatasync of the commit log',
      inject: (log: string) => ['-e', 'trace=fdatasync,fsync', '-e', 'inject=fdatasync,fsync:error=EIO', '-P', log],
      says: /EIO/,
    },
    {
      what: 'ENOSPC on the writes to the commit log',
      inject: (log: string) => [
        '-e',
        'trace=write,pwrite64,writev,pwritev,pwritev2,fallocate',
        '-e',
        'inject=write,pwrite64,writev,pwritev,pwritev2,fallocate:error=ENOSPC',
        '-P',
        log,
      ],
      says: /ENOSPC/,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: that write fails, later writes are refused (never retried), reads go on, the log says why, and a restart recovers every acknowledged write`, async () => {
      const dataDir = freshDir();
      const first = await start(dataDir);
      await first.table.create({ families: ['cf'] });
      const acknowledged = keys(40);
      for (const k of acknowledged) await put(first.table, k);

      const log = walFiles(dataDir).at(-1);
      if (log === undefined) throw new Error(`no commit log in ${dataDir}`);
      const trace = await strace(first.server, c.inject(log));
      await refused(put(first.table, 'failed'), c.says);
      await trace.detach();
      // The disk would take it now, but what reached it is unknown: the store takes no more writes until restart.
      await refused(put(first.table, 'after'), /writes are refused until restart/);
      // Reads are served meanwhile, and the write that failed is not among them.
      expect(await keysOf(first.table)).toEqual(acknowledged);
      expect(first.server.output()).toMatch(new RegExp(`ERROR +storage failed \\(.*\\): .*${path.basename(log)}`));
      expect(first.server.output()).toMatch(c.says);
      expect(first.server.exited()).toBe(false);

      await first.server.kill9();
      const second = await start(dataDir);
      const recovered = await keysOf(second.table);
      // Every acknowledged row; the failed write may or may not have reached the disk, the refused one did not.
      expect(recovered.filter((k) => k !== 'failed')).toEqual(acknowledged);
      expect(recovered).not.toContain('after');
      await put(second.table, 'after-restart');
      expect(await keysOf(second.table)).toContain('after-restart');
    });
  }

  it('a slow fdatasync of the commit log (1 s each) holds the writes that wait for it; once it is seen slow, reads are served meanwhile', async () => {
    const dataDir = freshDir();
    const { server, table } = await start(dataDir);
    await table.create({ families: ['cf'] });
    for (const k of keys(20)) await put(table, k);
    const log = walFiles(dataDir).at(-1)!;
    await strace(server, ['-e', 'trace=fdatasync,fsync', '-e', 'inject=fdatasync,fsync:delay_enter=1000000', '-P', log]);
    // A small sync runs on the event loop while syncs are fast (storage/fs/node-fs.ts SyncPlacement): the first slow
    // one holds the loop for its second; from then on syncs go to libuv's pool until the disk is fast again.
    const t0 = performance.now();
    await put(table, 'slow-1');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1000);
    let written = false;
    const write = put(table, 'slow-2').then(() => (written = true));
    const readsDone: boolean[] = [];
    // (strace stops the server at each of its system calls, so reads are slower than usual, but not seconds.)
    for (let i = 0; i < 10; i++) {
      const [row] = await table.row(keys(20)[i]!).get();
      expect(row.id).toBe(keys(20)[i]);
      readsDone.push(written);
    }
    // Every read came back while the write still waited for its sync.
    expect(readsDone).toEqual(readsDone.map(() => false));
    await write;
    expect(await keysOf(table)).toEqual(expect.arrayContaining(['slow-1', 'slow-2']));
  });

  it('EIO reading an SSTable fails those reads with UNAVAILABLE, the server goes on, and the next read succeeds', async () => {
    const dataDir = freshDir();
    // Small memtables: the rows go to SSTables; after a restart the block cache is empty, so reads go to the files.
    const args = ['--memtable-size', '64KiB'];
    const first = await start(dataDir, args);
    await first.table.create({ families: ['cf'] });
    const rows = keys(1500);
    for (let i = 0; i < rows.length; i += 100) {
      await first.table.insert(
        rows.slice(i, i + 100).map((key) => ({ key, data: { cf: { q: { value: 'v'.repeat(200), timestamp: new Date(1000) } } } })),
      );
    }
    await first.server.stop();
    servers.splice(servers.indexOf(first.server), 1);
    const { server, table } = await start(dataDir, args);
    const ssts = readdirSync(path.join(dataDir, 'sst')).filter((n) => n.endsWith('.sst'));
    expect(ssts.length).toBeGreaterThan(0);
    const trace = await strace(server, [
      '-e',
      'trace=read,pread64,readv,preadv,preadv2',
      '-e',
      'inject=read,pread64,readv,preadv,preadv2:error=EIO',
      ...ssts.flatMap((n) => ['-P', path.join(dataDir, 'sst', n)]),
    ]);
    await expect(table.row(rows[700]!).get()).rejects.toMatchObject({
      code: 14,
      message: expect.stringMatching(/I\/O error|EIO/) as unknown,
    });
    await trace.detach();
    const [row] = await table.row(rows[700]!).get();
    expect(row.id).toBe(rows[700]);
    expect((await keysOf(table)).length).toBe(rows.length);
    expect(server.exited()).toBe(false);
  });
});
