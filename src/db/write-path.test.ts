import { describe, expect, it } from 'vitest';
import { hllEstimate } from '../model/aggregate/index.js';
import type { RowFilter } from '../model/filter/index.js';
import { LIMITS } from '../model/limits.js';
import type { Mutation, ReadModifyWriteRule } from '../model/mutation.js';
import type { ValueType } from '../model/value-type.js';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { T0, codeOf, createTable, errorOf, family, openDb, readAll, set, showRow, text, v } from './testing/db-fixture.js';

const int64 = (n: bigint): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return new Uint8Array(b);
};
const readInt64 = (b: Uint8Array): bigint => Buffer.from(b).readBigInt64BE();
const sumType: ValueType = { kind: 'aggregate', aggregator: 'sum', input: 'int64' };
const minType: ValueType = { kind: 'aggregate', aggregator: 'min', input: 'int64' };
const maxType: ValueType = { kind: 'aggregate', aggregator: 'max', input: 'int64' };
const add = (fam: string, qualifier: string, timestamp: number, n: bigint): Mutation => ({
  kind: 'addToCell',
  family: fam,
  qualifier,
  timestamp,
  input: { kind: 'int', value: n },
});

for (const engine of ['memory', 'async'] as const) {
  const open = () => openDb(engine === 'async' ? { engine: createAsyncEngine() } : {});

  describe(`mutations (${engine} engine)`, () => {
    it('sets cells at explicit timestamps, newest version first', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'one'), set('cf', 'q', 3000, 'three'), set('cf', 'p', 2000, 'p')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'one again')]);
      expect(await readAll(f, name)).toEqual(['r: cf:p@2=p cf:q@3=three cf:q@1=one again']);
    });

    it('resolves server time (-1) to the clock truncated to milliseconds, once per request', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      f.clock.setMicros(T0 + 1_234_567);
      await f.db.mutateRow(name, 'r', [set('cf', 'a', -1, 'x'), set('cf', 'b', -1, 'y')]);
      await f.db.mutateRows(name, [{ key: 's', mutations: [set('cf', 'a', -1, 'z')] }]);
      const reader = f.db.readRows(name, { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
      const timestamps: number[] = [];
      for (let r = await reader.next(); r !== undefined; r = await reader.next()) for (const c of r.cells) timestamps.push(c.timestamp);
      reader.close();
      expect(timestamps).toEqual([T0 + 1_234_000, T0 + 1_234_000, T0 + 1_234_000]);
    });

    it('rejects timestamps that are not whole milliseconds (MILLIS granularity)', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('cf', 'q', 1500, 'x')]))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('cf', 'q', -2, 'x')]))).toBe('InvalidArgument');
      expect(await readAll(f, name)).toEqual([]);
    });

    it('deletes from a column by time range, a family and a whole row', async () => {
      const f = await open();
      const name = await createTable(f, [family('a'), family('b')]);
      const versions = [1000, 2000, 3000, 4000].map((ts) => set('a', 'q', ts, `v${ts / 1000}`));
      await f.db.mutateRow(name, 'r', [...versions, set('a', 'other', 1000, 'o'), set('b', 'q', 1000, 'b')]);
      await f.db.mutateRow(name, 'r', [{ kind: 'deleteFromColumn', family: 'a', qualifier: 'q', start: 2000, end: 4000 }]);
      expect(await readAll(f, name)).toEqual(['r: a:other@1=o a:q@4=v4 a:q@1=v1 b:q@1=b']);
      await f.db.mutateRow(name, 'r', [{ kind: 'deleteFromColumn', family: 'a', qualifier: 'q', start: 0, end: undefined }]);
      expect(await readAll(f, name)).toEqual(['r: a:other@1=o b:q@1=b']);
      await f.db.mutateRow(name, 'r', [{ kind: 'deleteFromFamily', family: 'a' }]);
      expect(await readAll(f, name)).toEqual(['r: b:q@1=b']);
      await f.db.mutateRow(name, 'r', [{ kind: 'deleteFromRow' }]);
      expect(await readAll(f, name)).toEqual([]);
    });

    it('applies the mutations of one request in order, atomically', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'first'), { kind: 'deleteFromRow' }, set('cf', 'q', 2000, 'second')]);
      expect(await readAll(f, name)).toEqual(['r: cf:q@2=second']);
    });

    it('validates the whole request before touching data', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'x'), set('nope', 'q', 1000, 'x')]))).toBe('NotFound');
      expect(await codeOf(() => f.db.mutateRow(name, 'r', []))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.mutateRow(name, '', [set('cf', 'q', 1000, 'x')]))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.mutateRow(name, 'k'.repeat(4097), [set('cf', 'q', 1000, 'x')]))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('cf', 'q'.repeat(16 * 1024 + 1), 1000, 'x')]))).toBe('InvalidArgument');
      expect(await readAll(f, name)).toEqual([]);
      expect(await codeOf(() => f.db.mutateRow(name, 'k'.repeat(4096), [set('cf', 'q', 1000, 'x')]))).toBe('none');
    });

    it('MutateRows: each entry succeeds or fails on its own', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')], { splits: ['m'] });
      const results = await f.db.mutateRows(name, [
        { key: 'a', mutations: [set('cf', 'q', 1000, 'a')] },
        { key: 'b', mutations: [set('unknown', 'q', 1000, 'b')] },
        { key: 'z', mutations: [set('cf', 'q', 1000, 'z')] },
        { key: '', mutations: [set('cf', 'q', 1000, 'empty key')] },
        { key: 'c', mutations: [] },
        { key: 'd', mutations: [set('cf', 'q', 1001, 'bad ts')] },
      ]);
      expect(results.map((r) => r?.code)).toEqual([
        undefined,
        'NotFound',
        undefined,
        'InvalidArgument',
        'InvalidArgument',
        'InvalidArgument',
      ]);
      expect(await readAll(f, name)).toEqual(['a: cf:q@1=a', 'z: cf:q@1=z']);
    });

    it('MutateRows: entries for the same row apply in order', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRows(name, [
        { key: 'r', mutations: [set('cf', 'q', 1000, 'first')] },
        { key: 's', mutations: [set('cf', 'q', 1000, 's')] },
        { key: 'r', mutations: [{ kind: 'deleteFromRow' }, set('cf', 'p', 1000, 'second')] },
      ]);
      expect(await readAll(f, name)).toEqual(['r: cf:p@1=second', 's: cf:q@1=s']);
    });

    it('MutateRows: more than 100,000 mutations in total is a request-wide error; no entries too', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      const entries = Array.from({ length: 2 }, (_, e) => ({
        key: `r${e}`,
        mutations: Array.from({ length: 50_001 - e }, (_, i) => set('cf', `q${i}`, 1000, 'x')),
      }));
      const error = await errorOf(() => f.db.mutateRows(name, entries));
      expect(error).toEqual({ code: 'InvalidArgument', message: 'Too many mutations: 100001 provided; limit 100000' });
      expect(await readAll(f, name)).toEqual([]);
      expect(await codeOf(() => f.db.mutateRows(name, []))).toBe('InvalidArgument');
      const exactly = [
        { key: 'r', mutations: Array.from({ length: LIMITS.maxMutationsPerRequest }, (_, i) => set('cf', `q${i}`, 1000, 'x')) },
      ];
      expect((await f.db.mutateRows(name, exactly))[0]).toBeUndefined();
    });

    it('concurrent writers to one row do not lose updates', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await Promise.all(Array.from({ length: 50 }, (_, i) => f.db.mutateRow(name, 'hot', [set('cf', `q${i}`, 1000, String(i))])));
      const rows = await readAll(f, name);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.split(' ').length - 1).toBe(50);
    });
  });

  describe(`aggregates (${engine} engine)`, () => {
    it('AddToCell folds into the cell at the same timestamp (sum, min, max)', async () => {
      const f = await open();
      const name = await createTable(f, [
        family('s', undefined, sumType),
        family('lo', undefined, minType),
        family('hi', undefined, maxType),
      ]);
      await f.db.mutateRow(name, 'r', [
        add('s', 'c', 1000, 5n),
        add('s', 'c', 1000, 7n),
        add('s', 'c', 2000, 1n),
        add('lo', 'c', 1000, 5n),
        add('hi', 'c', 1000, 5n),
      ]);
      await f.db.mutateRows(name, [
        { key: 'r', mutations: [add('s', 'c', 1000, -2n), add('lo', 'c', 1000, -3n), add('hi', 'c', 1000, 3n)] },
        { key: 'r', mutations: [add('s', 'c', 1000, 100n), add('hi', 'c', 1000, 9n)] },
      ]);
      const reader = f.db.readRows(name, { rows: { keys: ['r'], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
      const row = await reader.next();
      reader.close();
      expect(row?.cells.map((c) => `${c.family}:${c.qualifier}@${c.timestamp}=${readInt64(c.value)}`)).toEqual([
        's:c@2000=1',
        's:c@1000=110',
        'lo:c@1000=-3',
        'hi:c@1000=9',
      ]);
    });

    it('MergeToCell merges a state; SetCell into an aggregate family and AddToCell into a plain one are rejected', async () => {
      const f = await open();
      const name = await createTable(f, [family('s', undefined, sumType), family('plain')]);
      await f.db.mutateRow(name, 'r', [
        add('s', 'c', 1000, 5n),
        { kind: 'mergeToCell', family: 's', qualifier: 'c', timestamp: 1000, input: int64(10n) },
      ]);
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('s', 'c', 1000, 'raw')]))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.mutateRow(name, 'r', [add('plain', 'c', 1000, 1n)]))).toBe('InvalidArgument');
      const reader = f.db.readRows(name, { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
      const row = await reader.next();
      reader.close();
      expect(row?.cells.map((c) => readInt64(c.value))).toEqual([15n]);
    });

    it('HLL++ families count distinct inputs across requests and merge states', async () => {
      const f = await open();
      const hll: ValueType = { kind: 'aggregate', aggregator: 'hll', input: 'bytes' };
      const name = await createTable(f, [family('u', undefined, hll)]);
      const visit = (user: string): Mutation => ({
        kind: 'addToCell',
        family: 'u',
        qualifier: 'visitors',
        timestamp: 0,
        input: { kind: 'bytes', value: v(user) },
      });
      await f.db.mutateRows(
        name,
        Array.from({ length: 300 }, (_, i) => ({ key: 'page', mutations: [visit(`user${i % 100}`), visit(`user${i % 100}`)] })),
      );
      const read = async (key: string) => {
        const reader = f.db.readRows(name, { rows: { keys: [key], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
        const row = await reader.next();
        reader.close();
        return row!.cells[0]!.value;
      };
      expect(Math.round(hllEstimate(await read('page')))).toBe(100);
      // Merging the state into another row's cell unions the sets.
      await f.db.mutateRow(name, 'other', [visit('user0'), visit('someone-else')]);
      await f.db.mutateRow(name, 'other', [
        { kind: 'mergeToCell', family: 'u', qualifier: 'visitors', timestamp: 0, input: await read('page') },
      ]);
      expect(Math.round(hllEstimate(await read('other')))).toBe(101);
    });

    it('an AddToCell input of the wrong kind fails the whole MutateRows request, as production does', async () => {
      const f = await open();
      const name = await createTable(f, [family('s', undefined, sumType), family('cf')]);
      const error = await errorOf(() =>
        f.db.mutateRows(name, [
          { key: 'a', mutations: [set('cf', 'q', 1000, 'x')] },
          {
            key: 'b',
            mutations: [{ kind: 'addToCell', family: 's', qualifier: 'c', timestamp: 0, input: { kind: 'bytes', value: v('x') } }],
          },
        ]),
      );
      expect(error.code).toBe('InvalidArgument');
      expect(error.message).toMatch(/Entry list.*element #1/);
      expect(await readAll(f, name)).toEqual([]);
    });

    it('concurrent AddToCell writers of one counter lose no update, mixed with plain writes', async () => {
      // A plain write takes no row lock while nothing is locked; an AddToCell that must wait for its read
      // takes its rows' locks before it waits, so the others queue behind it.
      const f = await open();
      const name = await createTable(f, [family('sum', undefined, sumType), family('cf')]);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 4 === 0
            ? f.db.mutateRows(name, [
                { key: `plain${i}`, mutations: [set('cf', 'q', 1000, 'x')] },
                { key: 'hot', mutations: [set('cf', `p${i}`, 1000, 'y')] },
              ])
            : f.db.mutateRow(name, 'hot', [add('sum', 'n', 1000, 1n)]),
        ),
      );
      const reader = f.db.readRows(name, { rows: { keys: ['hot'], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
      const row = await reader.next();
      reader.close();
      const counter = row?.cells.find((c) => c.family === 'sum');
      expect(counter && readInt64(counter.value)).toBe(30n);
      expect(row?.cells.filter((c) => c.family === 'cf')).toHaveLength(10);
    });

    it('an AddToCell after the cell was deleted starts from scratch', async () => {
      const f = await open();
      const name = await createTable(f, [family('s', undefined, sumType)]);
      await f.db.mutateRow(name, 'r', [add('s', 'c', 1000, 5n)]);
      await f.db.mutateRow(name, 'r', [{ kind: 'deleteFromFamily', family: 's' }, add('s', 'c', 1000, 2n)]);
      const reader = f.db.readRows(name, { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
      const row = await reader.next();
      reader.close();
      expect(row?.cells.map((c) => readInt64(c.value))).toEqual([2n]);
    });
  });

  describe(`CheckAndMutateRow (${engine} engine)`, () => {
    const onlyColumn = (q: string): RowFilter => ({
      kind: 'columnRange',
      family: 'cf',
      start: { kind: 'closed', value: q },
      end: { kind: 'closed', value: q },
    });

    it('without a predicate, true means "the row has a cell"', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      expect(
        await f.db.checkAndMutateRow(name, 'r', undefined, [set('cf', 'q', 1000, 'was there')], [set('cf', 'q', 1000, 'was empty')]),
      ).toBe(false);
      expect(await readAll(f, name)).toEqual(['r: cf:q@1=was empty']);
      expect(
        await f.db.checkAndMutateRow(name, 'r', undefined, [set('cf', 'q', 1000, 'was there')], [set('cf', 'q', 1000, 'was empty')]),
      ).toBe(true);
      expect(await readAll(f, name)).toEqual(['r: cf:q@1=was there']);
    });

    it('with a predicate, true means the filter yields a cell; an empty branch writes nothing', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'a', 1000, 'x')]);
      expect(await f.db.checkAndMutateRow(name, 'r', onlyColumn('b'), [set('cf', 't', 1000, 'true')], [])).toBe(false);
      expect(await readAll(f, name)).toEqual(['r: cf:a@1=x']);
      expect(
        await f.db.checkAndMutateRow(name, 'r', onlyColumn('a'), [set('cf', 't', 1000, 'true')], [set('cf', 'f', 1000, 'false')]),
      ).toBe(true);
      expect(await readAll(f, name)).toEqual(['r: cf:a@1=x cf:t@1=true']);
    });

    it('the predicate sees the row after read-time GC', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf', { kind: 'maxVersions', versions: 1 })]);
      await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'old'), set('cf', 'q', 2000, 'new')]);
      const isOld: RowFilter = { kind: 'valueRegex', pattern: 'old' };
      expect(await f.db.checkAndMutateRow(name, 'r', isOld, [set('cf', 'm', 1000, 'saw old')], [set('cf', 'm', 1000, 'saw new')])).toBe(
        false,
      );
      expect(await readAll(f, name)).toEqual(['r: cf:m@1=saw new cf:q@2=new']);
    });

    it('validates: at least one branch, families, key, predicate', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      expect(await codeOf(() => f.db.checkAndMutateRow(name, 'r', undefined, [], []))).toBe('InvalidArgument');
      expect(await codeOf(() => f.db.checkAndMutateRow(name, 'r', undefined, [], [set('nope', 'q', 1000, 'x')]))).toBe('NotFound');
      expect(await codeOf(() => f.db.checkAndMutateRow(name, '', undefined, [set('cf', 'q', 1000, 'x')], []))).toBe('InvalidArgument');
      expect(
        await codeOf(() => f.db.checkAndMutateRow(name, 'r', { kind: 'valueRegex', pattern: '(' }, [set('cf', 'q', 1000, 'x')], [])),
      ).toBe('InvalidArgument');
      expect(
        await codeOf(() =>
          f.db.checkAndMutateRow(name, 'r', { kind: 'timestampRange', start: 1500, end: undefined }, [set('cf', 'q', 1000, 'x')], []),
        ),
      ).toBe('InvalidArgument');
      expect(await readAll(f, name)).toEqual([]);
    });

    it('is atomic: of concurrent claims of an empty row exactly one sees it empty', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      // Every call writes "claimed" only when the row is still empty: exactly one may win.
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => f.db.checkAndMutateRow(name, 'lock', undefined, [], [set('cf', 'owner', 1000, String(i))])),
      );
      expect(wins.filter((w) => !w)).toHaveLength(1);
    });
  });

  describe(`ReadModifyWriteRow (${engine} engine)`, () => {
    const inc = (qualifier: string, amount: bigint, fam = 'cf'): ReadModifyWriteRule => ({
      kind: 'increment',
      family: fam,
      qualifier,
      amount,
    });
    const append = (qualifier: string, value: string, fam = 'cf'): ReadModifyWriteRule => ({
      kind: 'append',
      family: fam,
      qualifier,
      value: v(value),
    });

    it('increments from absent (0) and from an 8-byte value, at the current time', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      const first = await f.db.readModifyWriteRow(name, 'r', [inc('n', 5n)]);
      expect(first.key).toBe('r');
      expect(first.cells.map((c) => [c.family, c.qualifier, c.timestamp, readInt64(c.value)])).toEqual([['cf', 'n', T0, 5n]]);
      f.clock.advanceMillis(10);
      const second = await f.db.readModifyWriteRow(name, 'r', [inc('n', -7n)]);
      expect(second.cells.map((c) => [c.timestamp, readInt64(c.value)])).toEqual([[T0 + 10_000, -2n]]);
      expect(await readAll(f, name)).toHaveLength(1);
    });

    it('appends, and applies several rules on one column in sequence with one result cell', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 's', 1000, 'ab')]);
      const out = await f.db.readModifyWriteRow(name, 'r', [append('s', 'c'), append('s', 'd'), inc('n', 1n), inc('n', 2n)]);
      expect(out.cells.map((c) => `${c.qualifier}=${c.qualifier === 'n' ? readInt64(c.value) : text(c.value)}`)).toEqual(['n=3', 's=abcd']);
    });

    it('returns the modified cells with families in creation order', async () => {
      const f = await open();
      const name = await createTable(f, [family('zeta'), family('alpha')]);
      const out = await f.db.readModifyWriteRow(name, 'r', [
        append('b', 'x', 'alpha'),
        append('a', 'y', 'alpha'),
        append('q', 'z', 'zeta'),
      ]);
      expect(out.cells.map((c) => `${c.family}:${c.qualifier}`)).toEqual(['zeta:q', 'alpha:a', 'alpha:b']);
    });

    it('writes at max(now, newest version) so a future cell is replaced, not hidden', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      const future = T0 + 3_600_000_000;
      await f.db.mutateRow(name, 'r', [set('cf', 's', future, 'future')]);
      const out = await f.db.readModifyWriteRow(name, 'r', [append('s', '+')]);
      expect(out.cells.map((c) => [c.timestamp, text(c.value)])).toEqual([[future, 'future+']]);
      expect(await readAll(f, name)).toEqual([`r: cf:s@${future / 1000}=future+`]);
    });

    it('reads the newest visible version (after GC) and leaves older ones', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf', { kind: 'maxAge', maxAgeMicros: 60_000_000 })]);
      await f.db.mutateRow(name, 'r', [set('cf', 's', T0 - 120_000_000, 'expired')]);
      const out = await f.db.readModifyWriteRow(name, 'r', [append('s', 'fresh')]);
      expect(out.cells.map((c) => text(c.value))).toEqual(['fresh']);
    });

    it('rejects an increment of a value that is not 8 bytes, and unknown families', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await f.db.mutateRow(name, 'r', [set('cf', 'n', 1000, 'abc')]);
      expect(await codeOf(() => f.db.readModifyWriteRow(name, 'r', [inc('n', 1n)]))).not.toBe('none');
      expect(await codeOf(() => f.db.readModifyWriteRow(name, 'r', [inc('n', 1n, 'nope')]))).toBe('NotFound');
      expect(await codeOf(() => f.db.readModifyWriteRow(name, 'r', []))).toBe('InvalidArgument');
      expect(await readAll(f, name)).toEqual(['r: cf:n@1=abc']);
    });

    it('concurrent increments of one counter are all counted', async () => {
      const f = await open();
      const name = await createTable(f, [family('cf')]);
      await Promise.all(Array.from({ length: 25 }, () => f.db.readModifyWriteRow(name, 'counter', [inc('n', 1n)])));
      const out = await f.db.readModifyWriteRow(name, 'counter', [inc('n', 0n)]);
      expect(readInt64(out.cells[0]!.value)).toBe(25n);
    });
  });
}

describe.each(['memory', 'durable'] as const)('row size limit (%s engine)', (kind) => {
  it('rejects a write that would make a row larger than 256 MiB, and accepts it in another row', async () => {
    // Durable: each part of the row ends up in its own SSTable (all zeros, so the files are small: the check must not go by file sizes).
    const disk = kind === 'durable' ? await openDiskEngine({ fs: new MemoryFileSystem(), dir: 'db' }) : undefined;
    const f = await openDb(disk === undefined ? {} : { engine: disk });
    const flushed = async (): Promise<void> => {
      if (disk !== undefined) await disk.flushAll();
    };
    const name = await createTable(f, [family('cf')]);
    const big = new Uint8Array(LIMITS.maxValueBytes);
    await f.db.mutateRow(name, 'r', [{ kind: 'setCell', family: 'cf', qualifier: 'a', timestamp: 1000, value: big }]);
    await flushed();
    await f.db.mutateRow(name, 'r', [{ kind: 'setCell', family: 'cf', qualifier: 'b', timestamp: 1000, value: big }]);
    await flushed();
    const error = await errorOf(() =>
      f.db.mutateRow(name, 'r', [{ kind: 'setCell', family: 'cf', qualifier: 'c', timestamp: 1000, value: big }]),
    );
    expect(error.code).toBe('InvalidArgument');
    expect(error.message).toMatch(/maximum allowed row size/);
    // Replacing a cell does not grow the row.
    await f.db.mutateRow(name, 'r', [{ kind: 'setCell', family: 'cf', qualifier: 'b', timestamp: 1000, value: big }]);
    const results = await f.db.mutateRows(name, [
      { key: 'r', mutations: [{ kind: 'setCell', family: 'cf', qualifier: 'd', timestamp: 1000, value: big }] },
      { key: 's', mutations: [{ kind: 'setCell', family: 'cf', qualifier: 'd', timestamp: 1000, value: big }] },
    ]);
    expect(results.map((r) => r?.code)).toEqual(['InvalidArgument', undefined]);
    const reader = f.db.readRows(name, {
      rows: { keys: [], ranges: [] },
      filter: { kind: 'stripValue' },
      limit: undefined,
      reversed: false,
    });
    const rows = [];
    for (let r = await reader.next(); r !== undefined; r = await reader.next()) rows.push(showRow(r));
    reader.close();
    expect(rows).toEqual(['r: cf:a@1= cf:b@1=', 's: cf:d@1=']);
  });
});

describe('a large MutateRows', () => {
  it('is applied in slices, in order, with other work running between them; every entry gets its own status', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')]);
    const value = 'x'.repeat(1000);
    // 25,000 entries of 1 KB: more than one slice by entries (10,000) and by bytes (4 MiB).
    const entries = Array.from({ length: 25_000 }, (_, i) => ({
      key: `k${String(i).padStart(6, '0')}`,
      mutations: [set('cf', 'q', 1000, value)],
    }));
    // The same row written by an early and a late entry: the later one wins; an invalid entry fails alone.
    entries[24_999] = { key: 'k000000', mutations: [set('cf', 'q', 1000, 'last')] };
    entries[3] = { key: 'k000003', mutations: [set('nope', 'q', 1000, 'x')] };
    let done = false;
    const seen: number[] = [];
    const watch = async (): Promise<void> => {
      while (!done) {
        // Another client's reads while the request is applied: how many of its rows they see.
        seen.push((await readAll(f, name)).length);
        await new Promise((r) => setImmediate(r));
      }
    };
    const applying = f.db.mutateRows(name, entries);
    const watching = watch();
    const results = await applying;
    done = true;
    await watching;
    expect(results.flatMap((r, i) => (r === undefined ? [] : [i]))).toEqual([3]);
    expect(results[3]?.message).toMatch(/nope/);
    // Reads ran between slices and saw some of the rows, neither none nor all.
    expect(seen.some((n) => n > 0 && n < 24_998)).toBe(true);
    const rows = await readAll(f, name);
    expect(rows.length).toBe(24_998);
    expect(rows[0]).toBe('k000000: cf:q@1=last');
  }, 60_000);
});

describe('an answer that rests on a write not yet durable', () => {
  it('waits for it: a CheckAndMutateRow that writes nothing answers only once what it read is durable', async () => {
    // The commit log's syncs are held at will: a write is then applied (visible to a lock holder) but not durable.
    let held: Promise<void> | undefined;
    let release = (): void => {};
    const mem = new MemoryFileSystem();
    const gated = <T extends object>(file: T): T =>
      new Proxy(file, {
        get(target, prop) {
          const v = Reflect.get(target, prop, target) as unknown;
          if (prop === 'sync')
            return async () => {
              if (held !== undefined) await held;
              return (v as () => Promise<void>).call(target);
            };
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
    const fs = new Proxy(mem, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (prop === 'create' || prop === 'reuse') return (path: string) => gated((v as (p: string) => object).call(target, path));
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const engine = await openDiskEngine({ fs, dir: 'db' });
    const f = await openDb({ engine });
    const name = await createTable(f, [family('cf')]);
    await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'old')]);
    held = new Promise((r) => (release = r));
    let written = false;
    const write = f.db.mutateRow(name, 'r', [set('cf', 'q', 2000, 'new')]).then(() => (written = true));
    // The predicate sees "new" (applied); the branch it picks writes nothing.
    let answered = false;
    const cam = f.db
      .checkAndMutateRow(name, 'r', { kind: 'valueRegex', pattern: 'new' }, [], [set('cf', 'q', 3000, 'was not new')])
      .then((matched) => {
        answered = true;
        return matched;
      });
    await new Promise((r) => setTimeout(r, 100));
    expect(written).toBe(false);
    // Answering now would reveal "new", which a crash at this moment would take back.
    expect(answered).toBe(false);
    release();
    held = undefined;
    await write;
    expect(await cam).toBe(true);
    await f.db.close();
  });
});
