import { describe, expect, it } from 'vitest';
import type { AccessRecorder, RowBatch } from '../db/index.js';
import { ALL, createTable, drain, family, openDb, set } from '../db/testing/db-fixture.js';
import { ManualClock } from '../model/clock.js';
import type { Column } from './column.js';
import { type BoundarySet, buildBoundaries } from './key-buckets.js';
import { TableRecorder } from './table-recorder.js';

const T0 = Date.UTC(2026, 0, 1) * 1000;
const NAME = { project: 'p', instance: 'i', table: 't' };
/** Three buckets: [''..'g'), ['g'..'p'), ['p'..). */
const SET: BoundarySet = { setId: 1, starts: ['', 'g', 'p'], rows: [10, 10, 10], bytes: [1000, 1000, 1000], estimated: false };

function setUp(bucketMillis = 10_000) {
  const clock = new ManualClock(T0);
  return { clock, rec: new TableRecorder('u1', NAME, clock, bucketMillis, SET) };
}

const write = (keys: string[], bytes: number[] = keys.map(() => 10), cpuMicros = 0): RowBatch => ({
  keys,
  bytes,
  count: keys.length,
  cpuMicros,
});
const read = (keys: string[], cells: number[], bytes: number[] = keys.map(() => 50), cpuMicros = 0): RowBatch => ({
  keys,
  bytes,
  cellsReturned: cells,
  count: keys.length,
  cpuMicros,
});
const arr = (col: Column, name: keyof Column['counters']): number[] => [...col.counters[name]];

describe('the table recorder', () => {
  it('counts rows written in their key bucket, in the column of their time bucket', () => {
    const { clock, rec } = setUp();
    clock.advanceMillis(3_000);
    rec.rowsWritten(write(['a', 'h', 'i', 'q'], [1, 2, 3, 4], 40));
    clock.advanceMillis(6_999);
    expect(rec.roll()).toEqual([]);
    clock.advanceMillis(1);
    const col = only(rec.roll());
    expect(col.startMillis).toBe(T0 / 1000);
    expect(col.durationMillis).toBe(10_000);
    expect(arr(col, 'write_ops')).toEqual([1, 2, 1]);
    expect(arr(col, 'write_bytes')).toEqual([1, 5, 4]);
    expect(arr(col, 'serving_micros')).toEqual([10, 20, 10]);
    expect(arr(col, 'read_ops')).toEqual([0, 0, 0]);
    // Closed: the next ops go to a new column, of the time bucket they came in.
    expect(rec.roll()).toEqual([]);
    clock.advanceMillis(25_000);
    rec.rowsWritten(write(['z']));
    clock.advanceMillis(10_000);
    const next = only(rec.roll());
    expect(next.startMillis).toBe(T0 / 1000 + 30_000);
    expect(arr(next, 'write_ops')).toEqual([0, 0, 1]);
  });

  it('puts each batch in the column of the time bucket it came in, however late the timer rolls', () => {
    const { clock, rec } = setUp();
    rec.rowsWritten(write(['a']));
    clock.advanceMillis(10_000);
    rec.rowsWritten(write(['h', 'i']));
    clock.advanceMillis(10_000);
    rec.rowsWritten(write(['q', 'r', 's']));
    // No roll in 20 s: three time buckets, three columns, each with its own batch.
    clock.advanceMillis(10_000);
    const cols = rec.roll();
    expect(cols.map((c) => c.startMillis - T0 / 1000)).toEqual([0, 10_000, 20_000]);
    expect(cols.map((c) => arr(c, 'write_ops'))).toEqual([
      [1, 0, 0],
      [0, 2, 0],
      [0, 0, 3],
    ]);
    expect(rec.roll()).toEqual([]);
  });

  it('keeps no column for a table without traffic', () => {
    const { clock, rec } = setUp();
    clock.advanceMillis(60_000);
    expect(rec.roll()).toEqual([]);
  });

  it('tracks the smallest and largest key touched in the first and last buckets', () => {
    const { clock, rec } = setUp();
    rec.rowsWritten(write(['ts#0005', 'ts#0001', 'ts#0009', 'c', 'b', 'k']));
    rec.rowsRead(read(['ts#0003', 'ts#0012'], [1, 1]));
    clock.advanceMillis(10_000);
    const col = only(rec.roll());
    expect(col.firstEdge).toEqual({ min: 'b', max: 'c' });
    expect(col.lastEdge).toEqual({ min: 'ts#0001', max: 'ts#0012' });
  });

  it('bounds the edge keys of read batches in either direction by their first and last rows there', () => {
    const { clock, rec } = setUp();
    // Ascending across all three buckets, then a reversed read that ends in the first bucket.
    rec.rowsRead(read(['a', 'b', 'c', 'h', 'q', 'ts#0002', 'ts#0007'], [1, 1, 1, 1, 1, 1, 1]));
    rec.rowsRead(read(['ts#0009', 'ts#0008', 'i', 'c', 'a0'], [1, 1, 1, 1, 1]));
    clock.advanceMillis(10_000);
    const col = only(rec.roll());
    expect(col.firstEdge).toEqual({ min: 'a', max: 'c' });
    expect(col.lastEdge).toEqual({ min: 'q', max: 'ts#0009' });
  });

  it('counts a scan as one read op per bucket it enters, and a point read as one op', () => {
    const { clock, rec } = setUp();
    // One scan from 'a' to 'r' in two batches (the batch boundary inside bucket 1 is no new op).
    rec.rowsRead(read(['a', 'b', 'h'], [2, 0, 1], [10, 20, 30], 30));
    rec.rowsRead(read(['i', 'q', 'r'], [0, 3, 1], [40, 500, 60], 30));
    rec.requestEnded('read', 'a', 800);
    // A point read in bucket 1.
    rec.rowsRead(read(['j'], [1]));
    rec.requestEnded('read', 'j', 100);
    clock.advanceMillis(10_000);
    const col = only(rec.roll());
    expect(arr(col, 'read_ops')).toEqual([1, 2, 1]);
    expect(arr(col, 'rows_read')).toEqual([2, 3, 2]);
    expect(arr(col, 'rows_returned')).toEqual([1, 2, 2]);
    expect(arr(col, 'cells_returned')).toEqual([2, 2, 4]);
    expect(arr(col, 'read_bytes')).toEqual([30, 120, 560]);
    expect([...col.maxRowBytes]).toEqual([20, 50, 500]);
    // 30 µs per batch of three rows: 10 µs a row.
    expect(arr(col, 'serving_micros')).toEqual([20, 20, 20]);
    expect(col.latency.map((s) => s?.count ?? 0)).toEqual([1, 1, 0]);
    expect(col.latency.map((s) => s?.max ?? 0)).toEqual([800, 100, 0]);
    expect(arr(col, 'write_ops')).toEqual([0, 0, 0]);
  });

  it('starts a new boundary set at the next column, never inside the open one', () => {
    const { clock, rec } = setUp();
    rec.rowsWritten(write(['a', 'h']));
    rec.setBoundaries({ setId: 2, starts: ['', 'c', 'h', 'x'], rows: [1, 1, 1, 1], bytes: [1, 1, 1, 1], estimated: false });
    rec.rowsWritten(write(['d']));
    clock.advanceMillis(10_000);
    const old = only(rec.roll());
    expect(old.setId).toBe(1);
    // 'd' falls in the old set's first bucket.
    expect(arr(old, 'write_ops')).toEqual([2, 1, 0]);
    rec.rowsWritten(write(['a', 'd', 'h', 'y']));
    clock.advanceMillis(10_000);
    const next = only(rec.roll());
    expect(next.setId).toBe(2);
    expect(arr(next, 'write_ops')).toEqual([1, 1, 1, 1]);
  });
});

describe('the table recorder behind a real database', () => {
  it('records sequential writes and a scan of the db in the buckets of the keys', async () => {
    let recorder: TableRecorder | undefined;
    let f: Awaited<ReturnType<typeof openDb>> | undefined;
    const access: AccessRecorder = {
      openTable: (uid, name) => {
        // One bucket per ten keys of 'ts#0000'..'ts#0099', made as the table opens.
        const starts = Array.from({ length: 10 }, (_, i) => ({
          key: `ts#${String(i * 10).padStart(4, '0')}`,
          rowsBefore: i * 10,
          bytesBefore: 0,
        }));
        const set = buildBoundaries({ exact: false, rows: 100, rowsEstimated: false, bytes: 0, points: starts, largestRows: [] }, 1, 10);
        recorder = new TableRecorder(uid, name, f!.clock, 10_000, set);
        return recorder;
      },
      dropTable: () => undefined,
    };
    f = await openDb({ access });
    const name = await createTable(f, [family('cf')], { splits: ['ts#0050'] });
    for (let i = 0; i < 100; i++) await f.db.mutateRow(name, `ts#${String(i).padStart(4, '0')}`, [set('cf', 'q', 1000, 'v')]);
    expect(
      await drain(
        f.db.readRows(name, {
          ...ALL,
          rows: { keys: [], ranges: [{ start: { kind: 'closed', key: 'ts#0020' }, end: { kind: 'open', key: 'ts#0040' } }] },
        }),
      ),
    ).toHaveLength(20);
    f.clock.advanceMillis(10_000);
    const col: Column = only(recorder!.roll());
    expect(recorder!.boundaries.starts).toHaveLength(10);
    expect([...col.counters.write_ops]).toEqual(new Array(10).fill(10));
    expect([...col.counters.rows_read]).toEqual([0, 0, 10, 10, 0, 0, 0, 0, 0, 0]);
    expect([...col.counters.rows_returned]).toEqual([0, 0, 10, 10, 0, 0, 0, 0, 0, 0]);
    expect([...col.counters.read_ops]).toEqual([0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    // 100 write requests and one read, each under its first key's bucket.
    expect(col.latency.map((s) => s?.count ?? 0)).toEqual([10, 10, 11, 10, 10, 10, 10, 10, 10, 10]);
    expect(col.lastEdge).toEqual({ min: 'ts#0090', max: 'ts#0099' });
  });
});

/** The one column a roll() closed. */
function only(cols: Column[]): Column {
  expect(cols).toHaveLength(1);
  return cols[0]!;
}
