import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../model/filter/index.js';
import type { GcRule } from '../model/gc-rule.js';
import type { RowRange } from '../model/key-range.js';
import type { ReadRequest } from './api.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { ALL, T0, codeOf, createTable, drain, family, openDb, readAll, set, showRow } from './testing/db-fixture.js';

const HOUR = 3_600_000_000;
const keysOf = (rows: string[]): string[] => rows.map((r) => r.slice(0, r.indexOf(':')));
const closed = (start: string, end: string): RowRange => ({ start: { kind: 'closed', key: start }, end: { kind: 'closed', key: end } });
const rows = (keys: string[], ranges: RowRange[] = []): Partial<ReadRequest> => ({ rows: { keys, ranges } });

for (const engine of ['memory', 'async'] as const) {
  const open = (options: Parameters<typeof openDb>[0] = {}) =>
    openDb(engine === 'async' ? { ...options, engine: createAsyncEngine() } : options);

  async function seeded(splits: string[] = ['c', 'f']) {
    const f = await open();
    const name = await createTable(f, [family('cf')], { splits });
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [set('cf', 'q', 1000, key)] })),
    );
    return { f, name, keys };
  }

  describe(`read-time GC (${engine} engine)`, () => {
    async function versions(rule: GcRule) {
      const f = await open();
      const name = await createTable(f, [family('cf', rule)]);
      // Versions written 4h, 3h, 2h, 1h ago and now.
      await f.db.mutateRow(
        name,
        'r',
        [4, 3, 2, 1, 0].map((h) => set('cf', 'q', T0 - h * HOUR, `${h}h`)),
      );
      return { f, name };
    }
    const values = async (f: Awaited<ReturnType<typeof open>>, name: Parameters<typeof readAll>[1]) =>
      (await readAll(f, name)).flatMap((r) =>
        r
          .split(' ')
          .slice(1)
          .map((c) => c.slice(c.indexOf('=') + 1)),
      );

    it('max versions keeps the newest n', async () => {
      const { f, name } = await versions({ kind: 'maxVersions', versions: 2 });
      expect(await values(f, name)).toEqual(['0h', '1h']);
    });

    it('max age follows the clock', async () => {
      const { f, name } = await versions({ kind: 'maxAge', maxAgeMicros: 2.5 * HOUR });
      expect(await values(f, name)).toEqual(['0h', '1h', '2h']);
      f.clock.advanceMillis(HOUR / 1000);
      expect(await values(f, name)).toEqual(['0h', '1h']);
      f.clock.advanceMillis((2 * HOUR) / 1000);
      expect(await readAll(f, name)).toEqual([]);
    });

    it('union collects what any rule collects', async () => {
      const { f, name } = await versions({
        kind: 'union',
        rules: [
          { kind: 'maxVersions', versions: 4 },
          { kind: 'maxAge', maxAgeMicros: 1.5 * HOUR },
        ],
      });
      expect(await values(f, name)).toEqual(['0h', '1h']);
    });

    it('intersection collects only what every rule collects', async () => {
      const { f, name } = await versions({
        kind: 'intersection',
        rules: [
          { kind: 'maxVersions', versions: 1 },
          { kind: 'maxAge', maxAgeMicros: 2.5 * HOUR },
        ],
      });
      expect(await values(f, name)).toEqual(['0h', '1h', '2h']);
    });

    it('applies per column and follows rule updates', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf', { kind: 'maxVersions', versions: 1 }), family('all')]);
      await f.db.mutateRow(name, 'r', [
        set('cf', 'a', 1000, 'a1'),
        set('cf', 'a', 2000, 'a2'),
        set('cf', 'b', 1000, 'b1'),
        set('all', 'x', 1000, 'x1'),
        set('all', 'x', 2000, 'x2'),
      ]);
      expect(await readAll(f, name)).toEqual(['r: cf:a@2=a2 cf:b@1=b1 all:x@2=x2 all:x@1=x1']);
      await f.db.modifyColumnFamilies(name, [{ kind: 'update', family: 'cf', gcRule: undefined, updateGcRule: true }], false);
      expect(await readAll(f, name)).toEqual(['r: cf:a@2=a2 cf:a@1=a1 cf:b@1=b1 all:x@2=x2 all:x@1=x1']);
    });

    it('a row whose cells are all collected is not returned', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf', { kind: 'maxAge', maxAgeMicros: HOUR })]);
      await f.db.mutateRows(name, [
        { key: 'old', mutations: [set('cf', 'q', T0 - 2 * HOUR, 'x')] },
        { key: 'new', mutations: [set('cf', 'q', T0, 'y')] },
      ]);
      expect(keysOf(await readAll(f, name))).toEqual(['new']);
    });
  });

  describe(`row assembly (${engine} engine)`, () => {
    it('orders families by creation order, not by name', async () => {
      const f = await open();
      const name = await createTable(f, [family('stats_summary'), family('cell_plan')]);
      await f.db.mutateRow(name, 'r', [set('cell_plan', 'x', 1000, 'plan'), set('stats_summary', 'y', 1000, 'stats')]);
      expect(await readAll(f, name)).toEqual(['r: stats_summary:y@1=stats cell_plan:x@1=plan']);
      // Filters see that order too: the first cell of the row is the stats_summary one.
      expect(await readAll(f, name, { filter: { kind: 'cellsPerRowLimit', limit: 1 } })).toEqual(['r: stats_summary:y@1=stats']);
      await f.db.modifyColumnFamilies(name, [{ kind: 'create', family: 'a_new', gcRule: undefined, valueType: { kind: 'bytes' } }], false);
      await f.db.mutateRow(name, 'r', [set('a_new', 'z', 1000, 'new')]);
      expect(await readAll(f, name)).toEqual(['r: stats_summary:y@1=stats cell_plan:x@1=plan a_new:z@1=new']);
    });

    it('hides the cells of a dropped family at once; a read in progress keeps its snapshot and schema', async () => {
      const f = await open();
      const name = await createTable(f, [family('a'), family('b')]);
      await f.db.mutateRows(name, [
        { key: 'r1', mutations: [set('a', 'q', 1000, 'a'), set('b', 'q', 1000, 'b')] },
        { key: 'r2', mutations: [set('a', 'q', 1000, 'a'), set('b', 'q', 1000, 'b')] },
      ]);
      const reader = f.db.readRows(name, ALL);
      const first = await reader.next();
      await f.db.modifyColumnFamilies(name, [{ kind: 'drop', family: 'b' }], false);
      expect(await readAll(f, name)).toEqual(['r1: a:q@1=a', 'r2: a:q@1=a']);
      expect([first!, ...(await drain(reader))].map(showRow)).toEqual(['r1: a:q@1=a b:q@1=b', 'r2: a:q@1=a b:q@1=b']);
    });
  });

  describe(`scans (${engine} engine)`, () => {
    it('reads all rows in order across tablets, and in reverse', async () => {
      const { f, name, keys } = await seeded();
      expect(keysOf(await readAll(f, name))).toEqual(keys);
      expect(keysOf(await readAll(f, name, { reversed: true }))).toEqual([...keys].reverse());
    });

    it('reads keys and ranges: sorted, each row once, overlapping ranges merged', async () => {
      const { f, name } = await seeded();
      const request = rows(
        ['g', 'b', 'g', 'zz'],
        [closed('b', 'd'), closed('c', 'e'), { start: { kind: 'open', key: 'f' }, end: { kind: 'unbounded' } }],
      );
      expect(keysOf(await readAll(f, name, request))).toEqual(['b', 'c', 'd', 'e', 'g', 'h']);
      expect(keysOf(await readAll(f, name, { ...request, reversed: true }))).toEqual(['h', 'g', 'e', 'd', 'c', 'b']);
      const openEnd: RowRange = { start: { kind: 'unbounded' }, end: { kind: 'open', key: 'c' } };
      expect(keysOf(await readAll(f, name, rows([], [openEnd])))).toEqual(['a', 'b']);
      expect(keysOf(await readAll(f, name, rows(['c'])))).toEqual(['c']);
      expect(keysOf(await readAll(f, name, rows(['missing'])))).toEqual([]);
    });

    it('rejects a range whose start is after its end', async () => {
      const { f, name } = await seeded();
      expect(await codeOf(() => f.db.readRows(name, { ...ALL, rows: { keys: [], ranges: [closed('d', 'b')] } }))).toBe('InvalidArgument');
    });

    it('honours the row limit, counting returned rows only', async () => {
      const { f, name } = await seeded();
      expect(keysOf(await readAll(f, name, { limit: 3 }))).toEqual(['a', 'b', 'c']);
      expect(keysOf(await readAll(f, name, { limit: 3, reversed: true }))).toEqual(['h', 'g', 'f']);
      const notB: RowFilter = { kind: 'rowKeyRegex', pattern: '[^b]' };
      expect(keysOf(await readAll(f, name, { limit: 2, filter: notB }))).toEqual(['a', 'c']);
      expect(keysOf(await readAll(f, name, { limit: 0 }))).toHaveLength(8);
      expect(await codeOf(() => f.db.readRows(name, { ...ALL, limit: -1 }))).toBe('InvalidArgument');
    });

    it('applies the filter with labels and keeps stats and the last scanned key', async () => {
      const { f, name } = await seeded();
      const filter: RowFilter = {
        kind: 'chain',
        filters: [
          { kind: 'rowKeyRegex', pattern: '[aeh]' },
          { kind: 'applyLabel', label: 'hit' },
        ],
      };
      const reader = f.db.readRows(name, { ...ALL, filter, limit: 2 });
      const out = (await drain(reader)).map(showRow);
      expect(out).toEqual(['a: cf:q@1=a[hit]', 'e: cf:q@1=e[hit]']);
      expect(reader.stats).toEqual({ rowsSeen: 5, cellsSeen: 5, rowsReturned: 2, cellsReturned: 2 });
      expect(reader.lastScannedKey).toBe('e');
      const filtered = f.db.readRows(name, { ...ALL, filter: { kind: 'blockAll' } });
      expect(await drain(filtered)).toEqual([]);
      expect(filtered.lastScannedKey).toBe('h');
      expect(filtered.stats.rowsReturned).toBe(0);
    });

    it('rejects an invalid filter and non-millisecond timestamp ranges before reading', async () => {
      const { f, name } = await seeded();
      expect(await codeOf(() => f.db.readRows(name, { ...ALL, filter: { kind: 'rowKeyRegex', pattern: '[' } }))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.readRows(name, { ...ALL, filter: { kind: 'timestampRange', start: 0, end: 1500 } }))).toBe(
        'InvalidArgument',
      );
      expect(
        await codeOf(() =>
          f.db.readRows(name, {
            ...ALL,
            filter: { kind: 'chain', filters: [{ kind: 'passAll' }, { kind: 'timestampRange', start: 1, end: undefined }] },
          }),
        ),
      ).toBe('InvalidArgument');
      expect(keysOf(await readAll(f, name, { filter: { kind: 'timestampRange', start: 1000, end: 2000 } }))).toHaveLength(8);
    });

    it('is pull-based: nothing is read beyond what the consumer asked for', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRows(
        name,
        Array.from({ length: 1000 }, (_, i) => ({ key: `k${String(i).padStart(4, '0')}`, mutations: [set('cf', 'q', 1000, 'x')] })),
      );
      const reader = f.db.readRows(name, ALL);
      await reader.next();
      await reader.next();
      expect(reader.stats.rowsSeen).toBe(2);
      reader.close();
      expect(await reader.next()).toBeUndefined();
    });

    it('reads a snapshot: writes after the scan reached a tablet are not seen', async () => {
      const { f, name } = await seeded([]);
      const reader = f.db.readRows(name, ALL);
      const first = await reader.next();
      await f.db.mutateRows(name, [
        { key: 'b', mutations: [{ kind: 'deleteFromRow' }] },
        { key: 'bb', mutations: [set('cf', 'q', 1000, 'new')] },
        { key: 'c', mutations: [set('cf', 'q', 2000, 'changed')] },
      ]);
      await f.db.dropRowRange(name, { kind: 'prefix', prefix: 'h' });
      const rest = (await drain(reader)).map(showRow);
      expect(first?.key).toBe('a');
      expect(keysOf(rest)).toEqual(['b', 'c', 'd', 'e', 'f', 'g', 'h']);
      expect(rest[1]).toBe('c: cf:q@1=c');
      expect(keysOf(await readAll(f, name))).toEqual(['a', 'bb', 'c', 'd', 'e', 'f', 'g']);
    });
  });

  describe(`SampleRowKeys (${engine} engine)`, () => {
    it('an empty table returns its split keys and the empty key, all at offset 0', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')], { splits: ['m', 'b', 'x'] });
      expect(await f.db.sampleRowKeys(name)).toEqual([
        { key: 'b', offsetBytes: 0 },
        { key: 'm', offsetBytes: 0 },
        { key: 'x', offsetBytes: 0 },
        { key: '', offsetBytes: 0 },
      ]);
    });

    it('samples big tablets and ends with the total size', async () => {
      const f = await open({ config: { samplePieceBytes: 10_000 } });
      const name = await createTable(f, [family('cf')], { splits: ['k5000'] });
      const value = 'v'.repeat(100);
      const keys = Array.from({ length: 1000 }, (_, i) => `k${String(i * 10).padStart(4, '0')}`);
      await f.db.mutateRows(
        name,
        keys.map((key) => ({ key, mutations: [set('cf', 'q', 1000, value)] })),
      );
      const samples = await f.db.sampleRowKeys(name);
      const rowBytes = 5 + 2 + 1 + 100 + 8;
      expect(samples.at(-1)).toEqual({ key: '', offsetBytes: 1000 * rowBytes });
      expect(samples).toContainEqual({ key: 'k5000', offsetBytes: 500 * rowBytes });
      // 58,000 bytes per tablet: 5 samples in each, the boundary and the end.
      expect(samples).toHaveLength(12);
      for (let i = 1; i < samples.length - 1; i++) {
        expect(samples[i]!.key > samples[i - 1]!.key).toBe(true);
        expect(samples[i]!.offsetBytes).toBeGreaterThan(samples[i - 1]!.offsetBytes);
      }
      // Each sample's offset is the size of the rows before its key.
      for (const s of samples.slice(0, -1)) {
        const before = keys.filter((k) => k < s.key).length;
        expect(s.offsetBytes).toBe(before * rowBytes);
      }
    });
  });
}

describe('background GC sweep', () => {
  it('physically drops collected cells (reads already hid them)', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf', { kind: 'maxVersions', versions: 1 })]);
    await f.db.mutateRow(
      name,
      'r',
      Array.from({ length: 10 }, (_, i) => set('cf', 'q', (i + 1) * 1000, 'x'.repeat(1000))),
    );
    const before = (await f.db.sampleRowKeys(name)).at(-1)!.offsetBytes;
    expect(await readAll(f, name)).toHaveLength(1);
    await f.db.runGcSweep();
    const after = (await f.db.sampleRowKeys(name)).at(-1)!.offsetBytes;
    expect(before).toBeGreaterThan(10_000);
    expect(after).toBeLessThan(1100);
    expect(await readAll(f, name)).toEqual([`r: cf:q@10=${'x'.repeat(1000)}`]);
  });

  it('runs on its timer', async () => {
    const f = await openDb({ config: { gcSweepIntervalMillis: 10 } });
    const name = await createTable(f, [family('cf', { kind: 'maxAge', maxAgeMicros: HOUR })]);
    await f.db.mutateRow(name, 'r', [set('cf', 'q', T0, 'x'.repeat(5000))]);
    f.clock.advanceMillis((2 * HOUR) / 1000);
    const deadline = Date.now() + 2000;
    while ((await f.db.sampleRowKeys(name)).at(-1)!.offsetBytes > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect((await f.db.sampleRowKeys(name)).at(-1)!.offsetBytes).toBe(0);
    await f.db.close();
  });
});

describe('long filtered scans', () => {
  it('yield to the event loop while rows are being filtered out', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')]);
    await f.db.mutateRows(
      name,
      Array.from({ length: 5000 }, (_, i) => ({ key: `k${String(i).padStart(5, '0')}`, mutations: [set('cf', 'q', 1000, 'x')] })),
    );
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const rows = await drain(f.db.readRows(name, { ...ALL, filter: { kind: 'rowKeyRegex', pattern: 'k04999' } }));
    clearInterval(timer);
    expect(rows.map((r) => r.key)).toEqual(['k04999']);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe('scan snapshots', () => {
  it('a range read across tablets sees one point in time while writes continue', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')], { splits: ['m'] });
    await f.db.mutateRows(
      name,
      ['a', 'b', 'n', 'o'].map((key) => ({ key, mutations: [set('cf', 'q', 1000, 'old')] })),
    );
    const reader = f.db.readRows(name, ALL);
    const first = await reader.next();
    expect(first?.key).toBe('a');
    // Writes to both tablets after the read started: in the range, ahead of the reader.
    await f.db.mutateRows(
      name,
      ['c', 'p', 'z'].map((key) => ({ key, mutations: [set('cf', 'q', 1000, 'new')] })),
    );
    await f.db.mutateRow(name, 'n', [set('cf', 'q', 2000, 'new')]);
    const rest = await drain(reader);
    expect(rest.map(showRow)).toEqual(['b: cf:q@1=old', 'n: cf:q@1=old', 'o: cf:q@1=old']);
  });
});
