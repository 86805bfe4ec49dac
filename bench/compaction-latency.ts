/**
 * Point-read latency during a major compaction, against the same reads on
 * the idle engine: what a compaction costs the requests served beside it.
 * The durable engine alone, in this process, on the real disk (no server or
 * client, whose own costs would blur the figure): rows of the benchmark data
 * set flushed into several SSTables, then random point reads from `--readers`
 * concurrent readers, first for `--seconds` on the idle engine, then for as
 * long as a major compaction of all the files runs. Each setting of
 * `--threads` (the engine's backgroundThreads: 0 merges and builds on the
 * serving thread in slices, 1 or more on build workers) runs in every round,
 * alternating. Prints p50/p99/max of the reads and of the event loop's delay,
 * and the during ÷ idle ratio of p99 (the limit: 1.5×). It runs under
 * the V8 options the server runs with (SERVER_NODE_FLAGS; it starts itself
 * again with them when they are missing): without them V8 marks the heap
 * several times as often during a compaction, and the figure is not the server's.
 *
 *   npx tsx bench/compaction-latency.ts [--rows 200000] [--value 1024] [--files 4] [--readers 8]
 *     [--seconds 5] [--threads 0,1] [--rounds 2] [--slice-ms M]   (the engine's backgroundSliceMillis, the shortest slice; default 0.25)
 *     [--trace]   (prints, for the compaction, every file-system call and every garbage collection that held the
 *                  thread 0.5 ms or more and every read slower than 2 ms, on one time line: what the slow reads
 *                  waited for)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SERVER_NODE_FLAGS, missingServerFlags } from '../src/cli/node-flags.js';
import { seededRandom } from '../src/testing/random.js';
import type { FileSystem } from '../src/storage/fs/file-system.js';
import { createNodeFileSystem } from '../src/storage/fs/node-fs.js';
import { type DiskEngine, openDiskEngine } from '../src/storage/lsm/disk-engine.js';
import type { RowStore, RowWrite } from '../src/storage/store.js';
import { FAMILY, QUALIFIER, ValuePool, rowKey, shuffledIndices } from './workloads/dataset.js';
import { Histogram } from './stats/histogram.js';

if (missingServerFlags(process.execArgv).length > 0) {
  const again = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    value: { type: 'string', default: '1024' },
    files: { type: 'string', default: '4' },
    readers: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '5' },
    threads: { type: 'string', default: '0,1' },
    rounds: { type: 'string', default: '2' },
    'slice-ms': { type: 'string' },
    trace: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const valueSize = Number(values.value);
const files = Number(values.files);
const readers = Number(values.readers);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const settings = values.threads.split(',').map(Number);
const slice = values['slice-ms'] === undefined ? {} : { backgroundSliceMillis: Number(values['slice-ms']) };

interface Phase {
  readonly reads: Histogram;
  readonly loop: { p50: number; p99: number; max: number };
  readonly millis: number;
}

/** The time line of --trace: [start ms, duration ms, what], for file-system calls and slow reads. */
const timeline: [number, number, string][] = [];
let tracing = false;
if (values.trace) {
  const kinds: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental marking', 8: 'weak callbacks' };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = ((e as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind ?? 0;
      if (tracing && e.duration >= 0.5) timeline.push([e.startTime, e.duration, `gc: ${kinds[kind] ?? kind}`]);
    }
  }).observe({ entryTypes: ['gc'] });
}

/** The real disk, with every synchronous call that takes 0.5 ms or more put on the time line while tracing. */
function tracedFileSystem(dir: string): FileSystem {
  const inner = createNodeFileSystem(dir);
  if (!values.trace) return inner;
  const timed =
    <A extends unknown[], R>(name: string, f: (...a: A) => R) =>
    (...a: A): R => {
      const t0 = performance.now();
      try {
        return f(...a);
      } finally {
        const ms = performance.now() - t0;
        // Only a path names the call: a file's write gets a buffer (turning a 1 MiB buffer into text held the thread ~40 ms).
        const what = typeof a[0] === 'string' ? a[0].split('/').slice(-2).join('/') : '';
        if (tracing && ms >= 0.5) timeline.push([t0, ms, `fs.${name}(${what})`]);
      }
    };
  const file = <T extends object>(kind: string, f: T): T =>
    new Proxy(f, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? timed(`${kind}.${String(prop)}`, (v as (...a: unknown[]) => unknown).bind(target)) : v;
      },
    });
  return {
    ...inner,
    create: timed('create', (p: string) => file('writable', inner.create(p))),
    reuse: timed('reuse', (p: string) => file('writable', inner.reuse(p))),
    openRead: timed('openRead', (p: string) => file('readable', inner.openRead(p))),
    readFile: timed('readFile', inner.readFile.bind(inner)),
    rename: timed('rename', inner.rename.bind(inner)),
    remove: timed('remove', inner.remove.bind(inner)),
  };
}

/** Random point reads by `readers` concurrent readers until `until` resolves; each value checked. */
async function readWhile(store: RowStore, pool: ValuePool, until: Promise<unknown>, seed: number): Promise<Phase> {
  const reads = new Histogram();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let done = false;
  void until.finally(() => (done = true));
  const began = performance.now();
  loop.enable();
  await Promise.all(
    Array.from({ length: readers }, async (_, lane) => {
      const random = seededRandom(seed * 100 + lane);
      while (!done) {
        // Each read arrives in an event-loop turn of its own, as a request does (a read served from memory
        // completes synchronously, and a loop of those would never let timers or background work run).
        // Its latency counts from its arrival: a read that waits for a slice of background work waits for it.
        const start = performance.now();
        await new Promise((resolve) => setImmediate(resolve));
        const i = Math.floor(random() * rows);
        const row = await store.get(rowKey(i));
        const took = performance.now() - start;
        reads.record(took * 1000);
        if (tracing && took >= 2) timeline.push([start, took, 'slow read']);
        const cell = row?.cells[0];
        if (cell === undefined || !Buffer.from(cell.value).equals(pool.value(i))) throw new Error(`row ${rowKey(i)} came back wrong`);
      }
    }),
  );
  loop.disable();
  const ms = (ns: number): number => ns / 1e6;
  return {
    reads,
    loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
    millis: performance.now() - began,
  };
}

async function load(engine: DiskEngine, store: RowStore, pool: ValuePool): Promise<void> {
  const order = shuffledIndices(rows, 7);
  const perFile = Math.ceil(rows / files);
  for (let from = 0; from < rows; from += perFile) {
    for (let b = from; b < Math.min(rows, from + perFile); b += 1000) {
      const batch: RowWrite[] = [];
      for (let k = b; k < Math.min(rows, from + perFile, b + 1000); k++) {
        const i = order[k]!;
        batch.push({ key: rowKey(i), ops: [{ kind: 'put', family: FAMILY, qualifier: QUALIFIER, timestamp: 1000, value: pool.value(i) }] });
      }
      await store.write(batch);
    }
    await engine.flushAll();
    process.stderr.write(`\r  loaded ${Math.min(rows, from + perFile).toLocaleString('en-US')} rows`);
  }
  process.stderr.write('\r');
}

function fmt(p: Phase): string {
  const q = (x: number): string => (x / 1000).toFixed(2);
  const rate = Math.round(p.reads.count / (p.millis / 1000)).toLocaleString('en-US');
  return (
    `reads p50 ${q(p.reads.quantile(0.5))} p99 ${q(p.reads.quantile(0.99))} max ${q(p.reads.max)} ms (${rate}/s); ` +
    `event-loop delay p99 ${p.loop.p99.toFixed(1)} max ${p.loop.max.toFixed(1)} ms`
  );
}

const pool = new ValuePool(valueSize);
const ratios = new Map<number, number[]>();
for (let round = 1; round <= rounds; round++) {
  for (const threads of settings) {
    const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-compaction-latency-'));
    const engine = await openDiskEngine({
      fs: tracedFileSystem(dir),
      dir: 'db',
      manualCompaction: true,
      config: { backgroundThreads: threads, ...slice },
    });
    try {
      const store = await engine.openStore('t');
      await load(engine, store, pool);
      const idle = await readWhile(store, pool, new Promise((r) => setTimeout(r, seconds * 1000)), round);
      const began = performance.now();
      timeline.length = 0;
      tracing = true;
      const during = await readWhile(store, pool, engine.compactNow(engine['stores'].get('t')!, true), round + 1);
      tracing = false;
      const compactSeconds = (performance.now() - began) / 1000;
      if (values.trace) {
        console.log(`  trace (ms from the compaction's start):`);
        for (const [at, ms, what] of timeline.sort((a, b) => a[0] - b[0]))
          console.log(`    ${(at - began).toFixed(1).padStart(8)}  ${ms.toFixed(2).padStart(7)} ms  ${what}`);
      }
      const ratio = during.reads.quantile(0.99) / idle.reads.quantile(0.99);
      ratios.set(threads, [...(ratios.get(threads) ?? []), ratio]);
      console.log(`round ${round}, --background-threads ${threads}:`);
      console.log(`  idle:               ${fmt(idle)}`);
      console.log(`  during compaction:  ${fmt(during)}; the compaction took ${compactSeconds.toFixed(1)} s`);
      console.log(`  p99 during ÷ idle:  ${ratio.toFixed(2)}×`);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
for (const [threads, r] of ratios)
  console.log(`--background-threads ${threads}: p99 during ÷ idle ${r.map((x) => x.toFixed(2) + '×').join(', ')}`);
