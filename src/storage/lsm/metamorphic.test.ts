/**
 * Metamorphic test of the durable engine, in the style of Pebble's: one
 * seeded random op log (tables with GC rules and aggregate families, every
 * mutation kind, conditional and read-modify-write operations, filtered
 * reads, drops, schema changes, clock ticks, GC sweeps) runs on a database
 * over the memory engine and on databases over the disk engine under several
 * configurations, where flushes, compactions, restarts and power losses
 * happen along the way. Every result must be the same everywhere.
 *
 * Environment, for long runs:
 *   METAMORPHIC_RUNS  runs per property (default 25)
 *   METAMORPHIC_SEED  fast-check seed (default fixed)
 *   METAMORPHIC_OPS   maximum random ops per log (default 60)
 *   METAMORPHIC_PATH  replay one counterexample (with its seed)
 * e.g. METAMORPHIC_RUNS=2000 METAMORPHIC_SEED=$RANDOM npx vitest run src/storage/lsm/metamorphic.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ColumnGc, KeySample, RowCursor, RowStore, RowWrite, ScanOptions, StorageEngine, StoreStats } from '../store.js';
import { createMemoryEngine } from '../memory/index.js';
import { checkLog, firstDifference } from './testing/check-log.js';
import { DISK_CONFIGS } from './testing/configs.js';
import { type OpLog, opLog } from './testing/op-arbitraries.js';
import type { Op } from './testing/ops.js';
import { runLog } from './testing/run-log.js';
import { openDiskSystem, openMemorySystem } from './testing/systems.js';
import { T0 } from './testing/universe.js';

const env = (name: string): number | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : Number(v);
};
const RUNS = env('METAMORPHIC_RUNS') ?? 25;
const SEED = env('METAMORPHIC_SEED') ?? 0x7ab1e70;
const MAX_OPS = env('METAMORPHIC_OPS') ?? 60;
const PATH = process.env.METAMORPHIC_PATH;
/** Generous: a long run is asked for by raising METAMORPHIC_RUNS. */
const TIMEOUT = 60_000 + RUNS * 3_000;

const disks = DISK_CONFIGS.map((spec) => () => openDiskSystem(spec));

describe('metamorphic: the disk engine answers exactly as the memory engine', () => {
  for (const physicalGc of [false, true]) {
    const what = physicalGc ? 'with GC sweeps (physical collection)' : 'with GC-rule updates and any deletes (no physical collection)';
    it(`random op logs ${what}`, async () => {
      await fc.assert(
        fc.asyncProperty(opLog(physicalGc, MAX_OPS), (log) => checkLog(log, () => openMemorySystem(), disks)),
        { seed: SEED + (physicalGc ? 1 : 0), numRuns: RUNS, ...(PATH === undefined ? {} : { path: PATH }) },
      );
    }, TIMEOUT);
  }
});

// ---------------------------------------------------------------- the harness itself

const set = (family: string, qualifier: string, timestamp: number, value: string): Op & { kind: 'mutateRow' } => ({
  kind: 'mutateRow',
  table: 't0',
  key: 'k',
  mutations: [{ kind: 'setCell', family, qualifier, timestamp, value: new Uint8Array(Buffer.from(value, 'latin1')) }],
});

const FIXED: OpLog = {
  physicalGc: false,
  ops: [
    { kind: 'createTable', table: 't0', families: ['plain', 'v1'], splits: ['b'] },
    set('plain', 'q', T0, 'one'),
    { kind: 'crash', tornSeed: 7 },
    set('v1', 'q', T0, 'old'),
    set('v1', 'q', T0 + 1000, 'new'),
    { kind: 'flush' },
    { kind: 'restart' },
    { kind: 'read', table: 't0', rows: { keys: [], ranges: [] }, filter: undefined, limit: 0, reversed: false },
    { kind: 'dropRowRange', table: 't0', prefix: 'k' },
    { kind: 'read', table: 't0', rows: { keys: [], ranges: [] }, filter: undefined, limit: 0, reversed: false },
  ],
};

/** A memory engine whose stores ignore DropRowRange: a planted bug the comparison must catch. */
function engineIgnoringDrops(): StorageEngine {
  const inner = createMemoryEngine();
  const wrap = (store: RowStore): RowStore => ({
    write: (batch: readonly RowWrite[]) => store.write(batch),
    get: (key: string) => store.get(key),
    scan: (options: ScanOptions): RowCursor => store.scan(options),
    dropRange: () => undefined,
    dropFamily: (family: string) => store.dropFamily(family),
    collectGarbage: (gc: ColumnGc, now: number) => store.collectGarbage(gc, now),
    stats: (): StoreStats => store.stats(),
    sampleKeys: (n: number): readonly KeySample[] | Promise<readonly KeySample[]> => store.sampleKeys(n),
    close: () => store.close(),
  });
  return {
    kind: 'memory',
    openStore: (id) => {
      const s = inner.openStore(id);
      return s instanceof Promise ? s.then(wrap) : wrap(s);
    },
    deleteStore: (id) => inner.deleteStore(id),
    readMeta: (key) => inner.readMeta(key),
    writeMeta: (key, value) => inner.writeMeta(key, value),
    close: () => inner.close(),
  };
}

describe('metamorphic harness', () => {
  it('transcripts carry the data: writes, survival of a crash and a restart, read-time GC, drops', async () => {
    const system = await openMemorySystem();
    const transcript = await runLog(system, FIXED);
    await system.close();
    const read = transcript.filter((l) => l.includes(' read: '));
    expect(read).toHaveLength(2);
    expect(read[0]).toContain('"k": plain:"q"@T0+0ms="one" v1:"q"@T0+1ms="new"]');
    expect(read[0]).not.toContain('"old"');
    expect(read[1]).toMatch(/read: \[\] seen 0 rows/);
  });

  it('the fixed log gives the same transcript on every disk configuration', async () => {
    await checkLog(FIXED, () => openMemorySystem(), disks);
  });

  it('catches a planted engine bug, naming the first operation that differs', async () => {
    const planted = () => openMemorySystem(engineIgnoringDrops(), 'planted');
    const error = await checkLog(FIXED, () => openMemorySystem(), [planted]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^planted differs from the memory engine at transcript line 9 \(op 9: read t0 all\)/);
  });

  it('reports lines missing at the end', () => {
    expect(firstDifference(FIXED, ['0 a', '1 b'], ['0 a'], 'x')).toContain('x: <missing>');
    expect(firstDifference(FIXED, ['0 a'], ['0 a'], 'x')).toBeUndefined();
  });
});
