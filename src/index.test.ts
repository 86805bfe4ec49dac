import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { rawClients, unaryCall, unaryError } from './server/testing/raw-client.js';
import { type Database, open, type RowReader, startServer } from './index.js';

describe('startServer', () => {
  it('starts in-process on a free loopback port, without HTTP by default, and stops idempotently', async () => {
    const server = await startServer();
    try {
      expect(server.host).toBe('localhost');
      expect(server.address).toBe(`localhost:${server.port}`);
      expect(server.port).toBeGreaterThan(0);
      expect(server.httpPort).toBeUndefined();
      expect(server.storage).toBe('memory');
      const clients = rawClients(server.address);
      await unaryCall(clients.tableAdmin, 'CreateTable', {
        parent: 'projects/p/instances/i',
        tableId: 't',
        table: { columnFamilies: { f: {} } },
      });
      const tables = await unaryCall(clients.tableAdmin, 'ListTables', { parent: 'projects/p/instances/i' });
      expect(tables.tables.map((t: { name: string }) => t.name)).toEqual(['projects/p/instances/i/tables/t']);
      clients.close();
    } finally {
      await server.stop();
      await server.stop();
    }
  });

  it('starts an HTTP server when asked, and two servers do not share data', async () => {
    const a = await startServer({ httpPort: 0 });
    const b = await startServer();
    try {
      expect(a.httpPort).toBeGreaterThan(0);
      expect(await (await fetch(`http://localhost:${a.httpPort}/healthz`)).text()).toBe('ok\n');
      const ca = rawClients(a.address);
      const cb = rawClients(b.address);
      await unaryCall(ca.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 'only-a', table: {} });
      // On b, nothing created the instance.
      expect((await unaryError(cb.tableAdmin, 'ListTables', { parent: 'projects/p/instances/i' })).code).toBe(5);
      ca.close();
      cb.close();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('rejects a port that is taken', async () => {
    const a = await startServer();
    try {
      await expect(startServer({ port: a.port })).rejects.toThrow(/cannot listen on localhost:\d+/);
    } finally {
      await a.stop();
    }
  });
});

describe('open', () => {
  const table = { project: 'p', instance: 'i', table: 't' };
  const spec = {
    families: [{ name: 'cf', gcRule: undefined, valueType: { kind: 'bytes' as const } }],
    initialSplits: [],
    deletionProtection: false,
  };
  const row = (key: string) => ({
    key,
    mutations: [{ kind: 'setCell' as const, family: 'cf', qualifier: 'q', timestamp: 1000, value: Buffer.from(key) }],
  });

  it('opens an embedded database', async () => {
    const db = await open();
    const info = await db.createTable(table, spec);
    expect(info.name.table).toBe('t');
    await db.close();
  });

  it('answers every call with a real Promise, even what the in-memory core answers at once, and fails by rejecting it', async () => {
    // The types say so too (checked by tsc): every method but readRows answers with a Promise.
    type NotAPromise = { [K in keyof Database]: ReturnType<Database[K]> extends Promise<unknown> ? never : K }[keyof Database];
    expectTypeOf<NotAPromise>().toEqualTypeOf<'readRows'>();
    expectTypeOf<ReturnType<Database['readRows']>>().toEqualTypeOf<RowReader>();
    const db = await open();
    try {
      const created = db.createTable(table, spec);
      expect(created).toBeInstanceOf(Promise);
      await created;
      for (const call of [
        () => db.getTable(table),
        () => db.listTables(table),
        () => db.listTablets(table),
        () => db.generateConsistencyToken(table),
        () => db.listInstances('p'),
      ]) {
        const answer = call();
        expect(answer).toBeInstanceOf(Promise);
        await answer;
      }
      // The core throws at once on an unknown table; the public face rejects instead.
      const missing = { ...table, table: 'missing' };
      const notFound = db.getTable(missing);
      expect(notFound).toBeInstanceOf(Promise);
      await expect(notFound).rejects.toMatchObject({ code: 'NotFound' });
      // Every method, called with nonsense, answers with a promise (most of them reject it).
      const methods = Object.entries(db).filter(([name]) => name !== 'readRows' && name !== 'close');
      expect(methods.length).toBeGreaterThan(30);
      let rejected = 0;
      for (const [name, method] of methods) {
        let answer: unknown;
        expect(() => (answer = (method as (...args: unknown[]) => unknown)(undefined, undefined, undefined)), name).not.toThrow();
        expect(answer, name).toBeInstanceOf(Promise);
        if ((await Promise.allSettled([answer]))[0]!.status === 'rejected') rejected++;
      }
      expect(rejected).toBeGreaterThan(methods.length / 2);
    } finally {
      await db.close();
    }
  });

  it('reads rows with for await; leaving the loop early closes the read; a bad read fails the loop', async () => {
    const db = await open();
    try {
      await db.createTable(table, spec);
      expect(await db.mutateRows(table, ['a', 'b', 'c', 'd'].map(row))).toEqual([undefined, undefined, undefined, undefined]);
      const all = { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false };
      const keys: string[] = [];
      for await (const r of db.readRows(table, all)) keys.push(r.key);
      expect(keys).toEqual(['a', 'b', 'c', 'd']);

      const reader = db.readRows(table, { ...all, reversed: true });
      const first: string[] = [];
      for await (const r of reader) {
        first.push(r.key);
        if (first.length === 2) break;
      }
      expect(first).toEqual(['d', 'c']);
      expect(reader.stats.rowsReturned).toBe(2);
      // Closed by the break: nothing more comes.
      for await (const r of reader) first.push(r.key);
      expect(first).toEqual(['d', 'c']);

      const bad = db.readRows({ ...table, table: 'missing' }, all);
      await expect(
        (async () => {
          for await (const r of bad) keys.push(r.key);
        })(),
      ).rejects.toMatchObject({ code: 'NotFound' });
    } finally {
      await db.close();
    }
  });

  it('holds the data directory while open (against other processes and this one) and releases it on close: another process may open it then, and this one again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tabletop-open-'));
    const db = await open({ dataDir: dir });
    await db.createTable(table, spec);
    await db.mutateRow(table, 'k', row('k').mutations);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8').trim().split(' ')[0]).toBe(String(process.pid));
    expect(await openInChild(dir)).toEqual({
      code: 1,
      err: expect.stringContaining(`data directory ${dir} is in use by process ${process.pid}`),
    });
    // A second open in this process is refused too (the kernel's lock belongs to the open file, not the process).
    await expect(open({ dataDir: dir })).rejects.toMatchObject({
      code: 'FailedPrecondition',
      message: expect.stringContaining('in use by this process'),
    });
    await expect(startServer({ dataDir: dir })).rejects.toMatchObject({ code: 'FailedPrecondition' });
    await db.close();
    // The file stays (removing it would let two processes lock two different files), emptied.
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe('');
    expect(await openInChild(dir)).toEqual({ code: 0, err: '' });
    const again = await open({ dataDir: dir });
    try {
      expect((await again.getTable(table)).name).toEqual(table);
      const keys: string[] = [];
      for await (const r of again.readRows(table, { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false }))
        keys.push(r.key);
      expect(keys).toEqual(['k']);
    } finally {
      await again.close();
    }
  });
});

/** Opens and closes the data directory with open() in another Node process (the built package): its exit code and stderr. */
async function openInChild(dir: string): Promise<{ code: number | null; err: string }> {
  const script = `const { open } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../dist/index.js')).href)});
try { const db = await open({ dataDir: ${JSON.stringify(dir)} }); await db.close(); } catch (e) { process.stderr.write(e.message); process.exit(1); }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, err };
}
