/**
 * Micro-benchmarks (not tests): `npx vitest bench bench/micro/recorder.bench.ts`.
 * What recording adds per row on the hot path (insight's TableRecorder): a
 * full scan's 64-row read batches, a bulk load's 1,000-row write batches and
 * single-row writes with their request latency, over a 1,000-bucket set.
 * Each bench records ROWS rows: divide the mean time by ROWS for one row. A
 * full scan's row costs the server ~3 µs and a bulk-loaded 100 B row ~4 µs
 * (bench/results), so 5% is ~150 ns and ~200 ns.
 */
import { bench, describe } from 'vitest';
import type { RowBatch } from '../../src/db/index.js';
import { ManualClock } from '../../src/model/clock.js';
import { buildBoundaries } from '../../src/insight/key-buckets.js';
import { TableRecorder } from '../../src/insight/table-recorder.js';
import { seededRandom } from '../../src/testing/random.js';

const ROWS = 64_000;
// Flat strings, as the server's keys are (decoded from the request's bytes), not the cons strings a template builds.
const keyOf = (i: number): string => Buffer.from(`user${String(i).padStart(10, '0')}`, 'latin1').toString('latin1');
const points = Array.from({ length: 1000 }, (_, i) => ({ key: keyOf(i * 100), rowsBefore: i * 100, bytesBefore: i * 100_000 }));
const set = buildBoundaries({ exact: false, rows: 100_000, rowsEstimated: false, bytes: 1e8, points, largestRows: [] }, 1);
const clock = new ManualClock();
const recorder = new TableRecorder('t1', { project: 'p', instance: 'i', table: 't' }, clock, 10_000, set);

const sequential = Array.from({ length: ROWS }, (_, i) => keyOf(i));
const rand = seededRandom(5);
const random = Array.from({ length: ROWS }, () => keyOf(Math.floor(rand() * 100_000)));
const bytes = new Array<number>(ROWS).fill(1100);
const cells = new Array<number>(ROWS).fill(1);

/** Batches of `size` rows over `keys`, as the db hands them (views of one buffer each). */
function batches(keys: readonly string[], size: number, read: boolean): RowBatch[] {
  const out: RowBatch[] = [];
  for (let i = 0; i < keys.length; i += size) {
    out.push({
      keys: keys.slice(i, i + size),
      bytes: bytes.slice(i, i + size),
      ...(read ? { cellsReturned: cells.slice(i, i + size) } : {}),
      count: Math.min(size, keys.length - i),
      cpuMicros: 150,
    });
  }
  return out;
}

const scanBatches = batches(sequential, 64, true);
const loadBatches = batches(random, 1000, false);
const singleWrites = batches(random, 1, false);

describe(`recording ${ROWS.toLocaleString('en-US')} rows over 1,000 buckets`, () => {
  bench('full scan: 64-row read batches, one request', () => {
    for (const b of scanBatches) recorder.rowsRead(b);
    recorder.requestEnded('read', sequential[0], 50_000);
  });
  bench('bulk load: 1,000-row write batches of random keys', () => {
    for (const b of loadBatches) recorder.rowsWritten(b);
  });
  bench('single-row writes of random keys, each a request', () => {
    for (const b of singleWrites) {
      recorder.rowsWritten(b);
      recorder.requestEnded('write', b.keys[0], 300);
    }
  });
});
