import { describe, expect, it } from 'vitest';
import type { ByteString } from '../model/bytes.js';
import type { TableName } from '../model/names.js';
import type { AccessRecorder, RowBatch, TableAccess } from './access.js';
import { ALL, createTable, drain, family, openDb, set } from './testing/db-fixture.js';

/** What one table's recorder was told, copied out of the caller's buffers during each call. */
interface Recorded {
  writes: { keys: ByteString[]; bytes: number[]; cpuMicros: number }[];
  reads: { keys: ByteString[]; bytes: number[]; cells: number[]; cpuMicros: number }[];
  requests: { kind: 'read' | 'write'; firstKey: ByteString | undefined; latencyMicros: number; ok: boolean }[];
}

/** An in-memory AccessRecorder of our own: one Recorded per table uid. */
class MemoryRecorder implements AccessRecorder {
  readonly tables = new Map<string, { name: TableName; recorded: Recorded }>();
  readonly dropped: string[] = [];
  /** The buffers the db handed over, to check that it reuses them. */
  readonly keyBuffers = new Set<readonly ByteString[]>();

  openTable(uid: string, name: TableName): TableAccess {
    const recorded: Recorded = { writes: [], reads: [], requests: [] };
    this.tables.set(uid, { name, recorded });
    const take = <T>(a: readonly T[] | undefined, n: number): T[] => (a ?? []).slice(0, n);
    return {
      rowsWritten: (b: RowBatch) => {
        recorded.writes.push({ keys: take(b.keys, b.count), bytes: take(b.bytes, b.count), cpuMicros: b.cpuMicros });
      },
      rowsRead: (b: RowBatch) => {
        this.keyBuffers.add(b.keys);
        recorded.reads.push({
          keys: take(b.keys, b.count),
          bytes: take(b.bytes, b.count),
          cells: take(b.cellsReturned, b.count),
          cpuMicros: b.cpuMicros,
        });
      },
      requestEnded: (kind, firstKey, latencyMicros, ok) => {
        recorded.requests.push({ kind, firstKey, latencyMicros, ok });
      },
    };
  }

  dropTable(uid: string): void {
    this.dropped.push(uid);
  }

  only(): Recorded {
    expect(this.tables.size).toBe(1);
    return [...this.tables.values()][0]!.recorded;
  }
}

async function setUp(splits: string[] = []) {
  const recorder = new MemoryRecorder();
  const f = await openDb({ access: recorder });
  const name = await createTable(f, [family('cf')], { splits });
  return { f, name, recorder, rec: recorder.only() };
}

const keys = (n: number, prefix = 'k'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

describe('the access recorder hook', () => {
  it('is opened for each table made, with its uid and name, and dropped with it', async () => {
    const { f, name, recorder } = await setUp();
    const [uid, entry] = [...recorder.tables][0]!;
    expect(entry.name).toEqual(name);
    await f.db.deleteTable(name);
    expect(recorder.dropped).toEqual([uid]);
  });

  it('is dropped for every table of an instance deleted with them', async () => {
    const { f, name, recorder } = await setUp();
    const other = await createTable(f, [family('cf')], { name: { ...name, table: `${name.table}-b` } });
    const uids = [...recorder.tables].filter(([, e]) => e.name.instance === name.instance).map(([uid]) => uid);
    expect(uids.length).toBe(2);
    expect(other.instance).toBe(name.instance);
    await f.db.deleteInstance({ project: name.project, instance: name.instance });
    expect([...recorder.dropped].sort()).toEqual([...uids].sort());
  });

  it('sees each store write: its keys and per-row bytes, one batch per tablet, and one request', async () => {
    const { f, name, rec } = await setUp(['m']);
    await f.db.mutateRows(name, [
      { key: 'a', mutations: [set('cf', 'q', 1000, 'xyz')] },
      { key: 'z', mutations: [set('cf', 'qq', 1000, 'v')] },
      { key: 'b', mutations: [{ kind: 'deleteFromRow' }] },
    ]);
    const batches = rec.writes.map((w) => ({ keys: w.keys, bytes: w.bytes })).sort((x, y) => (x.keys[0]! < y.keys[0]! ? -1 : 1));
    // bytes: family + qualifier + value + 8 (timestamp) + key for puts; a delete adds nothing.
    expect(batches).toEqual([
      { keys: ['a', 'b'], bytes: [2 + 1 + 3 + 8 + 1, 0] },
      { keys: ['z'], bytes: [2 + 2 + 1 + 8 + 1] },
    ]);
    for (const w of rec.writes) expect(w.cpuMicros).toBeGreaterThanOrEqual(0);
    expect(rec.reads).toEqual([]);
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]).toMatchObject({ kind: 'write', firstKey: 'a', ok: true });
    expect(rec.requests[0]!.latencyMicros).toBeGreaterThanOrEqual(0);
  });

  it('reports a write request that failed as not ok', async () => {
    const { f, name, rec } = await setUp();
    const results = await f.db.mutateRows(name, [{ key: 'a', mutations: [set('nope', 'q', 1000, 'x')] }]);
    expect(results.some((r) => r !== undefined)).toBe(true);
    expect(rec.requests).toMatchObject([{ kind: 'write', firstKey: 'a', ok: false }]);
  });

  it('sees a scan as batches of rows in reading order: stored bytes seen, cells returned (0 when filtered out), one request', async () => {
    const { f, name, rec } = await setUp(['k0100']);
    const all = keys(150);
    await f.db.mutateRows(
      name,
      all.map((key, i) => ({ key, mutations: [set('cf', 'q', 1000, i % 3 === 0 ? 'keep' : 'no')] })),
    );
    rec.requests.length = 0;
    const rows = await drain(f.db.readRows(name, { ...ALL, filter: { kind: 'valueRegex', pattern: 'keep' } }));
    expect(rows).toHaveLength(50);
    expect(rec.reads.flatMap((r) => r.keys)).toEqual(all);
    // key + qualifier + value
    expect(rec.reads.flatMap((r) => r.bytes)).toEqual(all.map((k, i) => k.length + 1 + (i % 3 === 0 ? 4 : 2)));
    expect(rec.reads.flatMap((r) => r.cells)).toEqual(all.map((_, i) => (i % 3 === 0 ? 1 : 0)));
    // Batches of at most 64 rows, and never across a tablet boundary.
    for (const r of rec.reads) {
      expect(r.keys.length).toBeLessThanOrEqual(64);
      expect(r.keys[0]! < 'k0100' === r.keys.at(-1)! < 'k0100').toBe(true);
    }
    expect(rec.requests).toMatchObject([{ kind: 'read', firstKey: 'k0000', ok: true }]);
  });

  it('gives the rows of a reversed read in descending order, and reuses its buffers from batch to batch', async () => {
    const { f, name, rec, recorder } = await setUp();
    const all = keys(200);
    await f.db.mutateRows(
      name,
      all.map((key) => ({ key, mutations: [set('cf', 'q', 1000, 'v')] })),
    );
    await drain(f.db.readRows(name, { ...ALL, reversed: true }));
    expect(rec.reads.flatMap((r) => r.keys)).toEqual([...all].reverse());
    expect(rec.reads.length).toBeGreaterThan(1);
    expect(recorder.keyBuffers.size).toBe(1);
    expect(rec.requests.filter((r) => r.kind === 'read')).toMatchObject([{ firstKey: 'k0199', ok: true }]);
  });

  it('ends a read request once, at its first close, with its limit reached', async () => {
    const { f, name, rec } = await setUp();
    await f.db.mutateRows(
      name,
      keys(10).map((key) => ({ key, mutations: [set('cf', 'q', 1000, 'v')] })),
    );
    const reader = f.db.readRows(name, { ...ALL, limit: 3 });
    expect(await drain(reader)).toHaveLength(3);
    reader.close();
    expect(rec.requests.filter((r) => r.kind === 'read')).toHaveLength(1);
    expect(rec.reads.flatMap((r) => r.keys)).toEqual(keys(3));
  });

  it('counts the row a check-and-mutate reads and the row it writes, in one request', async () => {
    const { f, name, rec } = await setUp();
    await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'abc')]);
    rec.writes.length = 0;
    rec.requests.length = 0;
    expect(await f.db.checkAndMutateRow(name, 'r', undefined, [set('cf', 'q', 2000, 'de')], [])).toBe(true);
    expect(rec.reads.map((r) => ({ keys: r.keys, bytes: r.bytes, cells: r.cells }))).toEqual([
      { keys: ['r'], bytes: [1 + 1 + 3], cells: [1] },
    ]);
    expect(rec.writes.map((w) => w.keys)).toEqual([['r']]);
    expect(rec.requests).toMatchObject([{ kind: 'write', firstKey: 'r', ok: true }]);
  });

  it('records nothing for a table the recorder declines, and nothing at all without a recorder', async () => {
    const declined: AccessRecorder = { openTable: () => undefined, dropTable: () => undefined };
    for (const f of [await openDb({ access: declined }), await openDb()]) {
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'v')]);
      expect(await drain(f.db.readRows(name, ALL))).toHaveLength(1);
    }
  });
});
