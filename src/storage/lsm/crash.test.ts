/**
 * Simulated power loss at random points of a random workload (writes,
 * deletes, range drops, flushes and compactions running in the background), in
 * the style of RocksDB's db_crashtest: the driver, which never crashes,
 * records which writes were acknowledged; after the crash the database must
 * hold every acknowledged write and no row may be half-applied.
 */
import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../../model/key-range.js';
import { createFaultFileSystem, type FsOp } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { slowSyncFs } from '../testing/slow-sync-fs.js';
import type { RowStore, StoreOp } from '../store.js';
import { openDiskEngine } from './disk-engine.js';
import { buildPool } from '../build/pool.js';
import { seededRandom } from '../../testing/random.js';

const COLUMNS = ['a', 'b', 'c'];
const config = {
  memtableBytes: 2048,
  blockBytes: 512,
  compactionTrigger: 3,
  majorCompactionTrigger: 6,
  walFileBytes: 8192,
  backgroundSliceMillis: 0,
};

/**
 * A row write: every column of the row gets the same version, so a torn row shows mixed versions.
 * `padding` makes it larger (commit-log groups that span pages).
 */
function writeOps(version: number, padding = 0): StoreOp[] {
  return COLUMNS.map((q) => ({
    kind: 'put',
    family: 'f',
    qualifier: q,
    timestamp: 1000,
    value: Buffer.from(String(version) + ' '.repeat(padding)),
  }));
}

async function readAll(store: RowStore): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const c = store.scan({ range: FULL_RANGE });
  try {
    for (;;) {
      const r = await c.next();
      if (r === undefined) return out;
      out.set(
        r.key,
        r.cells.map((x) => `${x.qualifier}=${Buffer.from(x.value).toString().trimEnd()}`),
      );
    }
  } finally {
    c.close();
  }
}

interface Expect {
  /** Versions ever issued per row (deletes as -1), in issue order. */
  issued: Map<string, number[]>;
  /** Highest index into `issued` that was acknowledged before the crash. */
  acked: Map<string, number>;
}

/** Commit-log files written over (reused) in all runs so far: the runs must exercise that path too. */
let reusedLogs = 0;

async function crashRun(seed: number, backgroundThreads = 0): Promise<void> {
  const random = seededRandom(seed);
  const fs = new MemoryFileSystem();
  // Syncs take effect a moment later, as a disk's do: the crash can find written but unsynced
  // commit-log groups, whose pages the crash may keep in any order.
  const syncRandom = seededRandom(seed ^ 0x5bd1e995);
  // Commit-log syncs are the slow ones, so flushes and manifest edits can complete while a group is still unsynced.
  const slow = slowSyncFs(
    fs,
    (path) =>
      new Promise((res) =>
        !path.includes('/wal/') || syncRandom() < 0.3 ? setImmediate(res) : setTimeout(res, 1 + Math.floor(syncRandom() * 3)),
      ),
  );
  const counting = createFaultFileSystem(slow, (op) => void (op === 'reuse' && reusedLogs++));
  const engine = await openDiskEngine({
    fs: counting,
    dir: 'db',
    config: { ...config, backgroundThreads },
    onBackgroundError: () => undefined,
  });
  // Two stores (tablets) sharing the commit log: rows below row20 in one, the rest in the other.
  const stores = [await engine.openStore('t'), await engine.openStore('u')];
  const storeOf = (key: string): RowStore => stores[key < 'row20' ? 0 : 1]!;
  const state: Expect = { issued: new Map(), acked: new Map() };
  /** Every write in issue order (sequence order): the row and its version, -1 for a delete. */
  const history: { key: string; version: number }[] = [];
  let lastAcked = -1;
  let version = 0;
  let crashed: MemoryFileSystem | undefined;
  const crashAfter = 20 + Math.floor(random() * 400);
  const pending: Promise<unknown>[] = [];
  const pendingOf: Promise<unknown>[][] = [[], []];
  /** Per store, the drop in flight (writes to the store wait for it). */
  const gates: (Promise<unknown> | undefined)[] = [undefined, undefined];
  const rowKey = (i: number): string => `row${String(i).padStart(2, '0')}`;
  for (let op = 0; op < crashAfter; op++) {
    if (random() < 0.03) {
      // A DropRowRange of a few rows of one store, as the database runs it: with no write of the
      // table in flight and none issued until it is acknowledged (its write gate). Writes to the
      // other store go on meanwhile, so the crash can split them from the drop.
      const first = Math.floor(random() * 40);
      const si = first < 20 ? 0 : 1;
      await Promise.all([...pendingOf[si]!, gates[si]]);
      const start = rowKey(first);
      const end = rowKey(Math.min(first + 1 + Math.floor(random() * 6), first < 20 ? 20 : 40));
      const dropped: [string, number][] = [];
      let at = -1;
      for (const [key, issued] of state.issued) {
        if (key < start || key >= end) continue;
        dropped.push([key, issued.push(-1) - 1]);
        at = history.push({ key, version: -1 }) - 1;
      }
      const d = Promise.resolve(stores[si]!.dropRange({ start, end })).then(() => {
        if (crashed !== undefined) return;
        for (const [key, idx] of dropped) if ((state.acked.get(key) ?? -1) < idx) state.acked.set(key, idx);
        if (at > lastAcked) lastAcked = at;
      });
      const gate = d.catch(() => undefined);
      gates[si] = gate;
      pending.push(gate);
      if (random() < 0.5) await gate;
      continue;
    }
    const key = rowKey(Math.floor(random() * 40));
    const si = key < 'row20' ? 0 : 1;
    await gates[si];
    const issued = state.issued.get(key) ?? [];
    state.issued.set(key, issued);
    const idx = issued.length;
    const del = random() < 0.1;
    issued.push(del ? -1 : ++version);
    const at = history.push({ key, version: del ? -1 : version }) - 1;
    const padding = random() < 0.2 ? 1500 : 0;
    const p = Promise.resolve(storeOf(key).write([{ key, ops: del ? [{ kind: 'deleteRow' }] : writeOps(version, padding) }])).then(() => {
      if (crashed === undefined && (state.acked.get(key) ?? -1) < idx) state.acked.set(key, idx);
      if (crashed === undefined && at > lastAcked) lastAcked = at;
    });
    pending.push(p.catch(() => undefined));
    pendingOf[si]!.push(p.catch(() => undefined));
    // Let time pass sometimes: syncs complete, background work advances.
    const r = random();
    if (r < 0.3) await p.catch(() => undefined);
    else if (r < 0.4) await new Promise((res) => setImmediate(res));
    // Now and then long enough for background work to catch up (flushes free commit-log files for reuse).
    else if (r < 0.43) await new Promise((res) => setTimeout(res, 3));
  }
  // Mostly, crash once the last writes are written but their sync has not completed.
  if (random() < 0.7) await new Promise((res) => setImmediate(res));
  crashed = fs.crash(random);
  await Promise.all(pending);
  await engine.close().catch(() => undefined);

  const reopened = await openDiskEngine({ fs: crashed, dir: 'db', config });
  const rows = new Map([...(await readAll(await reopened.openStore('t'))), ...(await readAll(await reopened.openStore('u')))]);
  for (const [key, issued] of state.issued) {
    const cells = rows.get(key);
    const ackedIdx = state.acked.get(key) ?? -1;
    // What the row holds must be one issued state at or after the last acknowledged one.
    const allowed = new Set<string>();
    for (let i = Math.max(0, ackedIdx); i < issued.length; i++) allowed.add(String(issued[i]));
    if (ackedIdx < 0) allowed.add('absent');
    let seen: string;
    if (cells === undefined) seen = allowed.has('-1') || ackedIdx < 0 ? (allowed.has('-1') ? '-1' : 'absent') : 'absent';
    else {
      const versions = new Set(cells.map((c) => c.split('=')[1]));
      expect(versions.size, `row ${key} is torn: ${cells.join(' ')} (seed ${seed})`).toBe(1);
      expect(cells.length, `row ${key} has ${cells.length} columns (seed ${seed})`).toBe(COLUMNS.length);
      seen = [...versions][0]!;
    }
    expect(allowed.has(seen), `row ${key}: found ${seen}, acked index ${ackedIdx} of ${issued.join(',')} (seed ${seed})`).toBe(true);
  }
  for (const key of rows.keys()) expect(state.issued.has(key)).toBe(true);
  expect(
    isPrefixState(history, rows, lastAcked),
    `the database after the crash is not what a prefix of the writes (through the last acknowledged one, #${lastAcked}) leaves (seed ${seed})`,
  ).toBe(true);
  await reopened.close();
}

/**
 * True when `rows` is exactly what the first k writes of `history` leave, for
 * some k past the last acknowledged write: a crash may lose only a suffix of
 * the writes, so no later write survives without an earlier one.
 */
function isPrefixState(history: readonly { key: string; version: number }[], rows: Map<string, string[]>, lastAcked: number): boolean {
  const found = (key: string): number => {
    const cells = rows.get(key);
    return cells === undefined ? -1 : Number(cells[0]!.split('=')[1]);
  };
  // What the prefix leaves for each row (-1: absent), and how many rows differ from `rows`.
  const expected = new Map<string, number>();
  let differing = 0;
  for (const { key } of history)
    if (!expected.has(key)) {
      expected.set(key, -1);
      if (found(key) !== -1) differing++;
    }
  for (let k = 0; k <= history.length; k++) {
    if (k > lastAcked && differing === 0) return true;
    const w = history[k];
    if (w === undefined) break;
    const before = expected.get(w.key)!;
    const want = found(w.key);
    if (before === want && w.version !== want) differing++;
    if (before !== want && w.version === want) differing--;
    expected.set(w.key, w.version);
  }
  return false;
}

describe('crash safety of the durable engine', () => {
  it('keeps every acknowledged write and never tears a row, over 40 random crashes', async () => {
    for (let seed = 1; seed <= 40; seed++) await crashRun(seed * 7919);
    expect(reusedLogs, 'no run reused a commit-log file').toBeGreaterThan(0);
  }, 120_000);

  it('keeps every acknowledged write with SSTables built on a worker thread, over 20 random crashes', async () => {
    const built = buildPool(1).completedBuilds;
    for (let seed = 1; seed <= 20; seed++) await crashRun(seed * 104_729, 1);
    expect(buildPool(1).completedBuilds - built, 'no SSTable was built by a worker').toBeGreaterThan(20);
  }, 120_000);

  it('a failing sync or write is never acknowledged, and refuses later writes', async () => {
    for (const failOp of ['sync', 'append', 'create', 'reuse', 'syncDir', 'rename'] as FsOp[]) {
      for (let nth = 1; nth <= 12; nth += 3) {
        const mem = new MemoryFileSystem();
        let count = 0;
        let armed = false;
        const fs = createFaultFileSystem(mem, (op) => (armed && op === failOp && ++count === nth ? 'error' : undefined));
        const engine = await openDiskEngine({ fs, dir: 'db', config, onBackgroundError: () => undefined });
        const store = await engine.openStore('t');
        armed = true;
        const acked: string[] = [];
        let failed = false;
        for (let i = 0; i < 120; i++) {
          const key = `k${String(i).padStart(3, '0')}`;
          try {
            await store.write([{ key, ops: writeOps(i) }]);
            if (failed) throw new Error(`write ${key} succeeded after a failure (${failOp} #${nth})`);
            acked.push(key);
          } catch (e) {
            if (!(e instanceof Error) || e.message.includes('succeeded after')) throw e;
            failed = true;
          }
        }
        await engine.close().catch(() => undefined);
        const reopened = await openDiskEngine({ fs: mem.crash(), dir: 'db', config });
        const rows = new Map([...(await readAll(await reopened.openStore('t'))), ...(await readAll(await reopened.openStore('u')))]);
        for (const key of acked) expect(rows.has(key), `${key} acked but lost (${failOp} #${nth})`).toBe(true);
        await reopened.close();
      }
    }
  }, 120_000);
});
