/**
 * Bulk load through the durable engine alone, in this process: no server,
 * no transport, no client. Shuffled rows of the benchmark data set, in
 * batches as MutateRows would bring them, into a fresh database in a
 * temporary directory on the real disk; prints the process's CPU per row
 * (including the final flush). For comparing engine changes (alternate runs
 * of two builds: the machine is noisy); bench/profile.ts measures the whole
 * server.
 *
 *   npx tsx bench/engine-load.ts --rows 500000 --value 100 [--slice-ms M]   (backgroundSliceMillis, the shortest slice; default 0.25)
 *   node --cpu-prof --import tsx bench/engine-load.ts     (a V8 CPU profile)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createNodeFileSystem } from '../src/storage/fs/node-fs.js';
import { openDiskEngine } from '../src/storage/lsm/disk-engine.js';
import type { RowWrite } from '../src/storage/store.js';
import { FAMILY, QUALIFIER, ValuePool, rowKey, shuffledIndices } from './workloads/dataset.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '500000' },
    value: { type: 'string', default: '100' },
    batch: { type: 'string', default: '1000' },
    'in-flight': { type: 'string', default: '4' },
    'slice-ms': { type: 'string' },
  },
});
const rows = Number(values.rows);
const valueSize = Number(values.value);
const batchRows = Number(values.batch);
const inFlight = Number(values['in-flight']);

const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-engine-load-'));
const pool = new ValuePool(valueSize);
const order = shuffledIndices(rows, 7);
// The batches are built before the clock starts: only the engine's work is measured.
const batches: RowWrite[][] = [];
for (let b = 0; b < rows; b += batchRows) {
  const batch: RowWrite[] = [];
  for (let i = b; i < Math.min(rows, b + batchRows); i++) {
    const k = order[i]!;
    batch.push({ key: rowKey(k), ops: [{ kind: 'put', family: FAMILY, qualifier: QUALIFIER, timestamp: 1000, value: pool.value(k) }] });
  }
  batches.push(batch);
}
const config = values['slice-ms'] === undefined ? {} : { backgroundSliceMillis: Number(values['slice-ms']) };
const engine = await openDiskEngine({ fs: createNodeFileSystem(dir), dir: 'db', config });
try {
  const store = await engine.openStore('t');
  const cpu = process.cpuUsage();
  const faults = process.resourceUsage().minorPageFault;
  const wall = performance.now();
  const pending: Promise<void>[] = [];
  for (const [n, batch] of batches.entries()) {
    pending.push(Promise.resolve(store.write(batch)));
    if (pending.length >= inFlight) await pending.shift();
    if (n % 100 === 99) process.stderr.write(`\r${((n + 1) * batchRows).toLocaleString('en-US')} rows`);
  }
  await Promise.all(pending);
  await engine.flushAll();
  const used = process.cpuUsage(cpu);
  process.stderr.write('\r');
  console.log(
    `${rows.toLocaleString('en-US')} rows of ${valueSize} B: ${((used.user + used.system) / rows).toFixed(2)} µs CPU/row ` +
      `(user ${(used.user / rows).toFixed(2)}, system ${(used.system / rows).toFixed(2)}), ` +
      `${((process.resourceUsage().minorPageFault - faults) / rows).toFixed(3)} minor page faults/row, ${((performance.now() - wall) / 1000).toFixed(1)} s`,
  );
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
