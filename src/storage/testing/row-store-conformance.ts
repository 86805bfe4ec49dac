import { describe, expect, it } from 'vitest';
import type { ByteString } from '../../model/bytes.js';
import { type Cell, type Row, compareCells } from '../../model/cell.js';
import { FULL_RANGE, type KeyRange } from '../../model/key-range.js';
import { applyStoreOps, newestOfColumns, rowBytes } from '../row-ops.js';
import type { GcRule } from '../../model/gc-rule.js';
import type { GcRules, ColumnRef, MaybePromise, RowCursor, RowStore, StoreOp } from '../store.js';
import { seededRandom } from '../../testing/random.js';

/**
 * The RowStore conformance suite: every engine runs it.
 *
 *   runRowStoreConformance('memory', () => createMemoryEngine().openStore('t'));
 *
 * `makeStore` must return a fresh, empty store each time. Every call on the
 * store is awaited, so engines may answer synchronously or with promises.
 */
/** GC rules that never change: each family listed with its rule (undefined: keep everything); others collected. */
function rules(entries: [string, GcRule | undefined][]): GcRules {
  const map = new Map(entries);
  return { current: () => map };
}

export interface ConformanceOptions {
  /**
   * The engine keeps `stats()` exact (the memory engine). A log-structured
   * engine reports file sizes and row counts that include shadowed versions
   * and tombstones until compaction; then only bounds are checked.
   */
  readonly exactStats?: boolean;
}

export function runRowStoreConformance(name: string, makeStore: () => MaybePromise<RowStore>, options: ConformanceOptions = {}): void {
  const exact = options.exactStats !== false;
  const v = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
  const put = (family: string, qualifier: ByteString, timestamp: number, value: string): StoreOp => ({
    kind: 'put',
    family,
    qualifier,
    timestamp,
    value: v(value),
  });
  /** A compact, comparable picture of a row: "fam:qual@ts=value" per cell. */
  const show = (row: Row | undefined): string[] | undefined =>
    row?.cells.map((c) => `${c.family}:${c.qualifier}@${c.timestamp}=${Buffer.from(c.value).toString('latin1')}`);

  async function drain(cursor: RowCursor): Promise<Row[]> {
    const rows: Row[] = [];
    try {
      for (;;) {
        const row = await cursor.next();
        if (row === undefined) return rows;
        rows.push(row);
      }
    } finally {
      cursor.close();
    }
  }
  const keysOf = (rows: Row[]): string[] => rows.map((r) => r.key);
  async function scanKeys(store: RowStore, range: KeyRange, reverse = false): Promise<string[]> {
    return keysOf(await drain(store.scan({ range, reverse })));
  }
  async function fill(store: RowStore, keys: string[]): Promise<void> {
    await store.write(keys.map((key) => ({ key, ops: [put('f', 'q', 1000, `v-${key}`)] })));
  }
  async function recomputedStats(store: RowStore): Promise<{ bytes: number; rows: number }> {
    const rows = await drain(store.scan({ range: FULL_RANGE }));
    return { bytes: rows.reduce((n, r) => n + rowBytes(r.key, r.cells), 0), rows: rows.length };
  }
  /**
   * Stats match the visible data exactly and say so, or (inexact engines) bound it and say
   * that the row count is an estimate; logical bytes (uncompressed) bound the visible data.
   */
  async function expectStats(store: RowStore, expected?: { bytes: number; rows: number }): Promise<void> {
    const want = expected ?? (await recomputedStats(store));
    const stats = store.stats();
    if (exact) {
      expect(stats).toEqual({ ...want, logicalBytes: want.bytes, rowsEstimated: false, bytesEstimated: false });
    } else {
      expect(stats.rows).toBeGreaterThanOrEqual(want.rows);
      expect(stats.rowsEstimated).toBe(stats.rows > 0);
      expect(stats.logicalBytes > 0).toBe(stats.rows > 0);
    }
  }

  describe(`RowStore conformance: ${name}`, () => {
    describe('write and get', () => {
      it('stores cells in storage order whatever the op order', async () => {
        const store = await makeStore();
        await store.write([
          {
            key: 'r1',
            ops: [
              put('b', 'x', 1000, '1'),
              put('a', 'z', 1000, '2'),
              put('a', 'y', 3000, '3'),
              put('a', 'y', 5000, '4'),
              put('a', '', 2000, '5'),
            ],
          },
        ]);
        const row = await store.get('r1');
        expect(row?.key).toBe('r1');
        expect(show(row)).toEqual(['a:@2000=5', 'a:y@5000=4', 'a:y@3000=3', 'a:z@1000=2', 'b:x@1000=1']);
        const cells = row?.cells ?? [];
        for (let i = 1; i < cells.length; i++) expect(compareCells(cells[i - 1]!, cells[i]!)).toBeLessThan(0);
        expect(cells.every((c) => c.labels.length === 0)).toBe(true);
      });

      it('returns undefined for a missing row', async () => {
        const store = await makeStore();
        expect(await store.get('nope')).toBeUndefined();
      });

      it('replaces the cell at the same coordinate, later op wins', async () => {
        const store = await makeStore();
        await store.write([{ key: 'r', ops: [put('f', 'q', 1000, 'old'), put('f', 'q', 1000, 'mid')] }]);
        await store.write([{ key: 'r', ops: [put('f', 'q', 1000, 'new')] }]);
        expect(show(await store.get('r'))).toEqual(['f:q@1000=new']);
      });

      it('applies the ops of a row in order', async () => {
        const store = await makeStore();
        await store.write([{ key: 'r', ops: [put('f', 'a', 1000, '1'), { kind: 'deleteRow' }, put('f', 'b', 1000, '2')] }]);
        expect(show(await store.get('r'))).toEqual(['f:b@1000=2']);
        await store.write([{ key: 'r', ops: [{ kind: 'deleteFamily', family: 'f' }, put('f', 'c', 2000, '3'), put('g', 'c', 2000, '4')] }]);
        expect(show(await store.get('r'))).toEqual(['f:c@2000=3', 'g:c@2000=4']);
      });

      it('applies several rows of a batch, including repeated keys in order', async () => {
        const store = await makeStore();
        await store.write([
          { key: 'a', ops: [put('f', 'q', 1000, 'a1')] },
          { key: 'b', ops: [put('f', 'q', 1000, 'b1')] },
          { key: 'a', ops: [put('f', 'q', 1000, 'a2')] },
        ]);
        expect(show(await store.get('a'))).toEqual(['f:q@1000=a2']);
        expect(show(await store.get('b'))).toEqual(['f:q@1000=b1']);
      });

      it('deletes versions of a column by half-open time range', async () => {
        const store = await makeStore();
        const ops = [1000, 2000, 3000, 4000].map((ts) => put('f', 'q', ts, `v${ts}`));
        await store.write([{ key: 'r', ops: [...ops, put('f', 'other', 2000, 'o'), put('g', 'q', 2000, 'g')] }]);
        await store.write([{ key: 'r', ops: [{ kind: 'deleteColumn', family: 'f', qualifier: 'q', start: 2000, end: 4000 }] }]);
        expect(show(await store.get('r'))).toEqual(['f:other@2000=o', 'f:q@4000=v4000', 'f:q@1000=v1000', 'g:q@2000=g']);
        await store.write([{ key: 'r', ops: [{ kind: 'deleteColumn', family: 'f', qualifier: 'q', start: 0, end: undefined }] }]);
        expect(show(await store.get('r'))).toEqual(['f:other@2000=o', 'g:q@2000=g']);
      });

      it('deletes a family of a row', async () => {
        const store = await makeStore();
        await store.write([{ key: 'r', ops: [put('f', 'a', 1000, '1'), put('g', 'b', 1000, '2'), put('h', 'c', 1000, '3')] }]);
        await store.write([{ key: 'r', ops: [{ kind: 'deleteFamily', family: 'g' }] }]);
        expect(show(await store.get('r'))).toEqual(['f:a@1000=1', 'h:c@1000=3']);
      });

      it('a row whose last cell is deleted no longer exists', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'b', 'c']);
        await store.write([{ key: 'b', ops: [{ kind: 'deleteColumn', family: 'f', qualifier: 'q', start: 0, end: undefined }] }]);
        expect(await store.get('b')).toBeUndefined();
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['a', 'c']);
        if (exact) expect(store.stats().rows).toBe(2);
        else expect(store.stats().rows).toBeGreaterThanOrEqual(2);
      });

      it('deleting from a missing row creates nothing', async () => {
        const store = await makeStore();
        await store.write([{ key: 'x', ops: [{ kind: 'deleteRow' }, { kind: 'deleteFamily', family: 'f' }] }]);
        expect(await store.get('x')).toBeUndefined();
        await expectStats(store, { bytes: 0, rows: 0 });
      });

      it('getForUpdate with columns gives the newest cell of each of them as the row stands', async () => {
        const store = await makeStore();
        const next = seededRandom(11);
        const random = (n: number): number => Math.floor(next() * n);
        const keys = ['a', 'hot'];
        const columns: ColumnRef[] = [
          { family: 'f', qualifier: 'c' },
          { family: 'f', qualifier: 'd' },
          { family: 'g', qualifier: 'c' },
        ];
        const model = new Map<string, readonly Cell[]>();
        for (let i = 0; i < 200; i++) {
          // Mostly a newer version of one counter-like column, sometimes an older one or a delete
          // (timestamps never below 0: a store's are resolved ones, and the disk engine writes them as varints).
          const key = random(4) === 0 ? 'a' : 'hot';
          const col = columns[random(columns.length)]!;
          const r = random(20);
          const op: StoreOp =
            r === 0
              ? { kind: 'deleteRow' }
              : r === 1
                ? { kind: 'deleteColumn', family: col.family, qualifier: col.qualifier, start: Math.max(0, i - 5) * 1000, end: undefined }
                : r === 2
                  ? { kind: 'deleteFamily', family: col.family }
                  : {
                      kind: 'put',
                      family: col.family,
                      qualifier: col.qualifier,
                      timestamp: Math.max(0, r === 3 ? i - 10 : i) * 1000,
                      value: v(`${i}`),
                    };
          await store.write([{ key, ops: [op] }]);
          model.set(key, applyStoreOps(model.get(key) ?? [], [op]));
          for (const k of keys) {
            const asked = [columns[random(3)]!, columns[random(3)]!];
            const expected = newestOfColumns(model.get(k) ?? [], asked);
            const got = await store.getForUpdate(k, asked);
            expect(show(got)).toEqual(expected.length === 0 ? undefined : show({ key: k, cells: expected }));
          }
        }
      });

      it('keeps binary keys, qualifiers and values intact', async () => {
        const store = await makeStore();
        const key = '\x00\xff\x80key\n';
        const qual = '\xff\x00';
        const value = new Uint8Array([0, 255, 128, 10]);
        await store.write([{ key, ops: [{ kind: 'put', family: 'f', qualifier: qual, timestamp: 7000, value }] }]);
        const row = await store.get(key);
        expect(row?.cells[0]?.qualifier).toBe(qual);
        expect(Array.from(row?.cells[0]?.value ?? [])).toEqual([0, 255, 128, 10]);
      });

      it('keeps a value given as a view into a larger buffer', async () => {
        const store = await makeStore();
        const big = new Uint8Array(1 << 20);
        big.set([1, 2, 3], 100);
        await store.write([
          { key: 'r', ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1000, value: big.subarray(100, 103) }] },
        ]);
        expect(Array.from((await store.get('r'))?.cells[0]?.value ?? [])).toEqual([1, 2, 3]);
      });
    });

    describe('scan', () => {
      const keys = ['a', 'ab', 'b', 'c', 'c\x00', 'd', '\xff'];

      it('streams rows in key order within [start, end)', async () => {
        const store = await makeStore();
        await fill(store, [...keys].reverse());
        expect(await scanKeys(store, FULL_RANGE)).toEqual(keys);
        expect(await scanKeys(store, { start: 'ab', end: 'c\x00' })).toEqual(['ab', 'b', 'c']);
        expect(await scanKeys(store, { start: 'aa', end: undefined })).toEqual(['ab', 'b', 'c', 'c\x00', 'd', '\xff']);
        expect(await scanKeys(store, { start: '', end: 'b' })).toEqual(['a', 'ab']);
        expect(await scanKeys(store, { start: 'c', end: 'c' })).toEqual([]);
        expect(await scanKeys(store, { start: 'e', end: 'f' })).toEqual([]);
      });

      it('streams rows in reverse key order within [start, end)', async () => {
        const store = await makeStore();
        await fill(store, keys);
        expect(await scanKeys(store, FULL_RANGE, true)).toEqual([...keys].reverse());
        expect(await scanKeys(store, { start: 'ab', end: 'c\x00' }, true)).toEqual(['c', 'b', 'ab']);
        expect(await scanKeys(store, { start: 'ab', end: 'c' }, true)).toEqual(['b', 'ab']);
        expect(await scanKeys(store, { start: 'aa', end: 'bb' }, true)).toEqual(['b', 'ab']);
        expect(await scanKeys(store, { start: 'b', end: undefined }, true)).toEqual(['\xff', 'd', 'c\x00', 'c', 'b']);
        expect(await scanKeys(store, { start: '', end: '\x00' }, true)).toEqual([]);
        expect(await scanKeys(store, { start: 'x', end: 'z' }, true)).toEqual([]);
      });

      it('returns whole rows with all their cells', async () => {
        const store = await makeStore();
        await store.write([{ key: 'r', ops: [put('f', 'a', 1000, '1'), put('f', 'a', 2000, '2'), put('g', 'b', 1000, '3')] }]);
        const rows = await drain(store.scan({ range: FULL_RANGE }));
        expect(rows.map(show)).toEqual([['f:a@2000=2', 'f:a@1000=1', 'g:b@1000=3']]);
      });

      it('sees a snapshot taken when it opened', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'b', 'c', 'd']);
        const cursor = store.scan({ range: FULL_RANGE });
        const first = await cursor.next();
        await store.write([
          { key: 'b', ops: [{ kind: 'deleteRow' }] },
          { key: 'bb', ops: [put('f', 'q', 1000, 'new')] },
          { key: 'c', ops: [put('f', 'q', 2000, 'newer')] },
        ]);
        await store.dropRange({ start: 'd', end: undefined });
        const rest: Row[] = [];
        for (let r = await cursor.next(); r !== undefined; r = await cursor.next()) rest.push(r);
        cursor.close();
        expect(first?.key).toBe('a');
        expect(keysOf(rest)).toEqual(['b', 'c', 'd']);
        expect(show(rest[1])).toEqual(['f:q@1000=v-c']);
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['a', 'bb', 'c']);
      });

      it('snapshot cursors stay independent of each other', async () => {
        const store = await makeStore();
        await fill(store, ['a']);
        const c1 = store.scan({ range: FULL_RANGE });
        await fill(store, ['b']);
        const c2 = store.scan({ range: FULL_RANGE });
        await fill(store, ['c']);
        const c3 = store.scan({ range: FULL_RANGE, reverse: true });
        expect(keysOf(await drain(c1))).toEqual(['a']);
        expect(keysOf(await drain(c2))).toEqual(['a', 'b']);
        expect(keysOf(await drain(c3))).toEqual(['c', 'b', 'a']);
      });

      it('close is idempotent and ends the cursor', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'b']);
        const cursor = store.scan({ range: FULL_RANGE });
        cursor.close();
        cursor.close();
        expect(await cursor.next()).toBeUndefined();
      });

      it('scans many rows across internal nodes', async () => {
        const store = await makeStore();
        const many = Array.from({ length: 5000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
        await fill(store, many);
        expect(await scanKeys(store, FULL_RANGE)).toEqual(many);
        expect(await scanKeys(store, { start: 'k01000', end: 'k01010' }, true)).toEqual(many.slice(1000, 1010).reverse());
        if (exact) expect(store.stats().rows).toBe(5000);
        else expect(store.stats().rows).toBeGreaterThanOrEqual(5000);
      });
    });

    describe('dropRange', () => {
      it('drops every row of a range and keeps the rest', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'pa', 'pb', 'pz\xff', 'q', 'z']);
        await store.dropRange({ start: 'p', end: 'q' });
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['a', 'q', 'z']);
        await expectStats(store);
      });

      it('drops an unbounded tail and the whole store', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'b', 'c']);
        await store.dropRange({ start: 'b', end: undefined });
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['a']);
        await fill(store, ['x', 'y']);
        await store.dropRange(FULL_RANGE);
        expect(await scanKeys(store, FULL_RANGE)).toEqual([]);
        await expectStats(store, { bytes: 0, rows: 0 });
        await fill(store, ['n']);
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['n']);
      });

      it('dropping an empty range or an empty store is harmless', async () => {
        const store = await makeStore();
        await store.dropRange({ start: 'a', end: 'b' });
        await fill(store, ['a', 'b']);
        await store.dropRange({ start: 'aa', end: 'ab' });
        expect(await scanKeys(store, FULL_RANGE)).toEqual(['a', 'b']);
      });
    });

    describe('dropFamily', () => {
      it('removes every cell of the family and rows left empty', async () => {
        const store = await makeStore();
        await store.write([
          { key: 'a', ops: [put('f', 'q', 1000, '1'), put('g', 'q', 1000, '2')] },
          { key: 'b', ops: [put('g', 'q', 1000, '3')] },
          { key: 'c', ops: [put('h', 'q', 1000, '4')] },
        ]);
        await store.dropFamily('g');
        expect(show(await store.get('a'))).toEqual(['f:q@1000=1']);
        expect(await store.get('b')).toBeUndefined();
        expect(show(await store.get('c'))).toEqual(['h:q@1000=4']);
        await expectStats(store);
      });

      it('works on stores larger than one rewrite slice', async () => {
        const store = await makeStore();
        const many = Array.from({ length: 10_000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
        await store.write(
          many.map((key, i) => ({
            key,
            ops: i % 2 === 0 ? [put('f', 'q', 1000, 'x')] : [put('f', 'q', 1000, 'x'), put('g', 'q', 1000, 'y')],
          })),
        );
        await store.dropFamily('f');
        expect(await scanKeys(store, FULL_RANGE)).toEqual(many.filter((_, i) => i % 2 === 1));
        await expectStats(store);
      });
    });

    describe('collectGarbage', () => {
      it('keeps what the column GC returns and drops empty rows', async () => {
        const store = await makeStore();
        await store.write([
          { key: 'a', ops: [put('f', 'q', 1000, '1'), put('f', 'q', 2000, '2'), put('f', 'q', 3000, '3'), put('g', 'q', 1000, 'g')] },
          { key: 'b', ops: [put('g', 'q', 1000, 'only-g')] },
          { key: 'c', ops: [put('f', 'r', 5000, 'x')] },
        ]);
        // Family f keeps one version; family g is no longer in the schema: collected entirely.
        await store.collectGarbage(rules([['f', { kind: 'maxVersions', versions: 1 }]]), 123_000);
        expect(show(await store.get('a'))).toEqual(['f:q@3000=3']);
        expect(await store.get('b')).toBeUndefined();
        expect(show(await store.get('c'))).toEqual(['f:r@5000=x']);
        await expectStats(store);
      });

      it('does not disturb an open scan', async () => {
        const store = await makeStore();
        await fill(store, ['a', 'b']);
        const cursor = store.scan({ range: FULL_RANGE });
        await store.collectGarbage(rules([]), 0);
        expect(keysOf(await drain(cursor))).toEqual(['a', 'b']);
        expect(await scanKeys(store, FULL_RANGE)).toEqual([]);
      });

      it('keeps writes that land while a large collection is running', async () => {
        const store = await makeStore();
        const many = Array.from({ length: 12_000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
        await fill(store, many);
        const done = store.collectGarbage(rules([['f', undefined]]), 0);
        await store.write([{ key: 'k11999', ops: [put('f', 'q', 9000, 'late')] }]);
        await done;
        expect(show(await store.get('k11999'))).toEqual(['f:q@9000=late', 'f:q@1000=v-k11999']);
        await expectStats(store);
      });
    });

    describe('stats and samples', () => {
      it('keeps bytes and rows exact through every kind of change', async () => {
        const store = await makeStore();
        await expectStats(store, { bytes: 0, rows: 0 });
        await store.write([
          { key: 'a', ops: [put('f', 'q', 1000, 'hello'), put('f', 'q', 2000, 'world')] },
          { key: 'bb', ops: [put('fam', 'qual', 1000, 'x'.repeat(100))] },
        ]);
        await expectStats(store);
        if (exact) {
          expect(store.stats().rows).toBe(2);
          const expectedA = 1 + (1 + 1 + 5 + 8) * 2;
          expect(store.stats().bytes).toBe(expectedA + 2 + (3 + 4 + 100 + 8));
        }
        await store.write([{ key: 'a', ops: [put('f', 'q', 1000, 'replaced-value')] }]);
        await expectStats(store);
        await store.write([{ key: 'a', ops: [{ kind: 'deleteRow' }] }]);
        await expectStats(store);
        if (exact) expect(store.stats().rows).toBe(1);
      });

      it('bounds the size of every row without reading it, coarsely and refined', async () => {
        const store = await makeStore();
        const next = seededRandom(7);
        const random = (n: number): number => Math.floor(next() * n);
        const keys = ['a', 'b', 'row-with-a-longer-key', 'z'];
        for (let i = 0; i < 60; i++) {
          const key = keys[random(keys.length)]!;
          const ops: StoreOp[] = [];
          for (let n = 1 + random(3); n > 0; n--) {
            const r = random(10);
            ops.push(
              r === 0
                ? { kind: 'deleteRow' }
                : r === 1
                  ? { kind: 'deleteColumn', family: 'f', qualifier: 'q1', start: 0, end: undefined }
                  : // Small and large values, all-zero ones (they compress well), timestamps with short varints.
                    {
                      kind: 'put',
                      family: r < 5 ? 'f' : 'family',
                      qualifier: `q${random(3)}`,
                      timestamp: random(3),
                      value: new Uint8Array(r === 9 ? 20_000 : random(3)),
                    },
            );
          }
          await store.write([{ key, ops }]);
          for (const k of keys) {
            const row = await store.getForUpdate(k);
            const actual = row === undefined ? 0 : rowBytes(k, row.cells);
            expect(store.rowBytesBound(k, Infinity)).toBeGreaterThanOrEqual(actual);
            expect(store.rowBytesBound(k, 0)).toBeGreaterThanOrEqual(actual);
          }
        }
      });

      it('samples keys at roughly even byte offsets, ascending, inside the store', async () => {
        const store = await makeStore();
        const many = Array.from({ length: 1000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
        await fill(store, many);
        const total = store.stats().bytes;
        const rowSize = total / 1000;
        const samples = await store.sampleKeys(total / 10);
        expect(samples.length).toBeGreaterThanOrEqual(exact ? 8 : 5);
        expect(samples.length).toBeLessThanOrEqual(10);
        let prev = '';
        let prevOffset = 0;
        for (const s of samples) {
          expect(s.key > prev).toBe(true);
          // Exact engines sample stored keys; others may sample index separators between them.
          if (exact) expect(many).toContain(s.key);
          else expect(s.key > many[0]! && s.key <= many[many.length - 1]!).toBe(true);
          const gap = s.offsetBytes - prevOffset;
          expect(gap).toBeGreaterThanOrEqual(total / 10);
          if (exact) {
            // The offset is exactly the bytes of the rows before the key.
            expect(s.offsetBytes).toBeCloseTo(many.indexOf(s.key) * rowSize, 6);
            expect(gap).toBeLessThan(total / 10 + 2 * rowSize);
          } else {
            // Offsets follow the key's position in the data, within a couple of blocks.
            expect(Math.abs(s.offsetBytes - many.filter((k) => k < s.key).length * rowSize)).toBeLessThan(total / 4);
          }
          prev = s.key;
          prevOffset = s.offsetBytes;
        }
        expect(await store.sampleKeys(total * 2)).toEqual([]);
      });

      it('an empty store has no samples', async () => {
        const store = await makeStore();
        expect(await store.sampleKeys(1)).toEqual([]);
      });
    });
  });
}
