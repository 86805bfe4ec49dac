/**
 * Metamorphic test of the durable engine, in the style of Pebble's: one
 * seeded random op log (tables with initial splits, GC rules and aggregate
 * families; every mutation kind; CheckAndMutateRow and ReadModifyWriteRow;
 * bulk loads; bursts of concurrent writes to one row; filtered, ranged,
 * reversed and limited reads, and scans held open while writes, drops,
 * flushes and compactions happen; DropRowRange, family changes, table and
 * instance deletion; clock ticks; GC sweeps) runs on a database over the
 * memory engine and on databases over the disk engine under several
 * configurations (testing/metamorphic/configs.ts), where flushes, compactions, restarts
 * and power losses happen along the way. Every result must be the same
 * everywhere (testing/metamorphic/run-log.ts says what is compared; op-arbitraries.ts
 * how the generator avoids the one legitimate difference, physical GC).
 *
 * Environment, for long runs:
 *   METAMORPHIC_RUNS  runs per property (default 60)
 *   METAMORPHIC_SEED  fast-check seed (default fixed)
 *   METAMORPHIC_OPS   maximum random ops per log (default 60)
 *   METAMORPHIC_PATH  replay one counterexample: the seed and path fast-check prints
 *                     (with the same METAMORPHIC_OPS and METAMORPHIC_EXCLUDE)
 *   METAMORPHIC_EXCLUDE  op kinds to leave out, comma-separated (`during:kind`, `burst:kind`:
 *                        only inside scanWhile, burst)
 * e.g. METAMORPHIC_RUNS=2000 METAMORPHIC_SEED=$RANDOM npx vitest run src/db/metamorphic.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Mutation } from '../model/mutation.js';
import type { RowStore, StorageEngine } from '../storage/store.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import { checkLog, firstDifference } from './testing/metamorphic/check-log.js';
import { DISK_CONFIGS } from './testing/metamorphic/configs.js';
import { type OpLog, opLog } from './testing/metamorphic/op-arbitraries.js';
import type { Op } from './testing/metamorphic/ops.js';
import { runLog } from './testing/metamorphic/run-log.js';
import { openDiskSystem, openMemorySystem } from './testing/metamorphic/systems.js';
import { T0 } from './testing/metamorphic/universe.js';

const env = (name: string): number | undefined => {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : Number(v);
};
const RUNS = env('METAMORPHIC_RUNS') ?? 60;
const SEED = env('METAMORPHIC_SEED') ?? 0x7ab1e70;
const MAX_OPS = env('METAMORPHIC_OPS') ?? 60;
const PATH = process.env.METAMORPHIC_PATH;
/** Op kinds to leave out, comma-separated, to look past a known failure: METAMORPHIC_EXCLUDE=deleteInstance,during:dropRowRange */
const EXCLUDE = new Set((process.env.METAMORPHIC_EXCLUDE ?? '').split(',').filter((k) => k !== ''));
/** Generous: a long run is asked for by raising METAMORPHIC_RUNS. */
const TIMEOUT = 60_000 + RUNS * 3_000;

const disks = DISK_CONFIGS.map((spec) => () => openDiskSystem(spec));

describe('metamorphic: the disk engine answers exactly as the memory engine', () => {
  for (const physicalGc of [false, true]) {
    const what = physicalGc ? 'with GC sweeps (physical collection)' : 'with GC-rule updates and any deletes (no physical collection)';
    it(
      `random op logs ${what}`,
      async () => {
        await fc.assert(
          fc.asyncProperty(opLog({ physicalGc, maxOps: MAX_OPS, exclude: EXCLUDE }), (log) =>
            checkLog(log, () => openMemorySystem(), disks),
          ),
          { seed: SEED, numRuns: RUNS, ...(PATH === undefined ? {} : { path: PATH }) },
        );
      },
      TIMEOUT,
    );
  }
});

// ---------------------------------------------------------------- counterexamples found so far

const ALL_ROWS = { keys: [], ranges: [] };

const setCell = (family: string, qualifier: string, timestamp: number, value: string): Mutation => ({
  kind: 'setCell',
  family,
  qualifier,
  timestamp,
  value: new Uint8Array(Buffer.from(value, 'latin1')),
});

const set = (family: string, qualifier: string, timestamp: number, value: string): Op => ({
  kind: 'mutateRow',
  table: 't0',
  key: 'k',
  mutations: [setCell(family, qualifier, timestamp, value)],
});

/**
 * Minimal counterexamples the random search found (seed and path in the
 * comments), kept as fixed regression logs.
 */
const COUNTEREXAMPLES: readonly { readonly name: string; readonly log: OpLog }[] = [
  {
    // seed 1, path "11:0:0:0:1:2:8:9:0:8" (and seed 2 with a crash instead of a restart).
    // DeleteInstance drops the tables' stores in the background, the restart closes the engine
    // meanwhile, and the second deleteStore reaches the closed manifest: a TypeError, and the
    // store stays in the manifest for good.
    name: 'DeleteInstance, then a restart before its stores are dropped',
    log: {
      physicalGc: false,
      ops: [
        { kind: 'createTable', table: 't0', families: ['min'], splits: [] },
        { kind: 'createTable', table: 't1', families: ['v1'], splits: [] },
        { kind: 'deleteInstance' },
        { kind: 'restart' },
      ],
    },
  },
  {
    // seed 104, path "909:0:0:1:1:0:3:6:6:6:10:11:11:11:11:11:11:14:14:14:16:21:22:22:22".
    // A scan open across a DropRowRange loses rows of its snapshot once the store has had any
    // earlier drop (here of a family).
    name: 'a scan keeps its snapshot across a DropRowRange after an earlier family drop',
    log: {
      physicalGc: true,
      ops: [
        { kind: 'createTable', table: 't0', families: ['plain', 'uni'], splits: [] },
        { kind: 'createTable', table: 't1', families: ['plain'], splits: [] },
        { kind: 'mutateRows', table: 't0', entries: [{ key: 'c', mutations: [setCell('plain', '', T0, 'c')] }] },
        { kind: 'mutateRows', table: 't0', entries: [{ key: 'a', mutations: [setCell('plain', '', 1000, '')] }] },
        { kind: 'modifyFamilies', table: 't0', mods: [{ kind: 'drop', family: 'uni' }] },
        {
          kind: 'scanWhile',
          table: 't0',
          rows: ALL_ROWS,
          filter: undefined,
          limit: 0,
          reversed: false,
          first: 1,
          during: [{ kind: 'dropRowRange', table: 't0', prefix: undefined }],
        },
      ],
    },
  },
];

describe('metamorphic counterexamples', () => {
  for (const { name, log } of COUNTEREXAMPLES) {
    it(name, async () => {
      await checkLog(log, () => openMemorySystem(), disks);
    });
  }
});

// ---------------------------------------------------------------- the harness itself

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
  const wrap = (store: RowStore): RowStore =>
    new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'dropRange') return () => undefined;
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'openStore') {
        return (id: string) => {
          const s = target.openStore(id);
          return s instanceof Promise ? s.then(wrap) : wrap(s);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('metamorphic harness', () => {
  it('transcripts carry the data: writes, survival of a crash and a restart, read-time GC, drops', async () => {
    const system = await openMemorySystem();
    const transcript = await runLog(system, FIXED);
    await system.close();
    const read = transcript.filter((l) => l.includes(' read: '));
    expect(read).toHaveLength(2);
    expect(read[0]).toContain("['k': plain:'q'@T0+0ms='one' v1:'q'@T0+1ms='new']");
    expect(read[0]).not.toContain("'old'");
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
