import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Mutation } from '../model/mutation.js';
import { MemoryFileSystem } from '../storage/fs/memory-fs.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import type { RowStore, StorageEngine } from '../storage/store.js';
import { memoryLogger } from '../testing/memory-logger.js';
import type { Logger } from '../log.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { ALL, createTable, drain, family, type Fixture, INSTANCE, openDb } from './testing/db-fixture.js';
import { raceAtEveryPoint } from './testing/race.js';

/** A logger that keeps the messages of every level in `logs`. */
const collecting = (logs: string[]): Logger => ({
  info: (m) => void logs.push(m),
  warn: (m) => void logs.push(m),
  error: (m) => void logs.push(m),
});

/** Incompressible, so sizes on disk match sizes in memory. */
const value = (n: number): Uint8Array => new Uint8Array(randomBytes(n));
const setCell = (v: Uint8Array): Mutation => ({ kind: 'setCell', family: 'cf', qualifier: 'q', timestamp: 1000, value: v });

const engines: [string, () => Promise<StorageEngine | undefined>][] = [
  ['memory', async () => undefined],
  ['disk', async () => openDiskEngine({ fs: new MemoryFileSystem(), dir: 'db', config: { memtableBytes: 16 * 1024, blockBytes: 1024 } })],
];

async function keysOf(f: Fixture, name: Parameters<Fixture['db']['readRows']>[0]): Promise<string[]> {
  return (await drain(f.db.readRows(name, ALL))).map((r) => r.key);
}

/** Reads each key `times` times, advancing the clock one second per round. */
async function readLoad(
  f: Fixture,
  name: Parameters<Fixture['db']['readRows']>[0],
  keys: string[],
  seconds: number,
  perSecond: number,
): Promise<void> {
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < perSecond; i++) {
      const key = keys[i % keys.length]!;
      await drain(f.db.readRows(name, { ...ALL, rows: { keys: [key], ranges: [] } }));
    }
    f.clock.advanceMillis(1000);
    await f.db.runTabletChecks();
  }
}

describe.each(engines)('tablets on the %s engine', (_name, makeEngine) => {
  async function open(config: Record<string, number> = {}, logger?: Logger): Promise<Fixture> {
    const engine = await makeEngine();
    return openDb({
      ...(engine === undefined ? {} : { engine }),
      config: { tabletSplitBytes: 8 * 1024, ...config },
      ...(logger === undefined ? {} : { logger }),
    });
  }

  it('splits a tablet that grows past the split size, at its median, and logs why', async () => {
    const logger = memoryLogger();
    const logs = logger.lines;
    const f = await open({}, logger);
    const name = await createTable(f, [family('cf')]);
    const keys = Array.from({ length: 200 }, (_, i) => `row${String(i).padStart(4, '0')}`);
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [setCell(value(200))] })),
    );
    for (let i = 0; i < 10; i++) await f.db.runTabletChecks();
    const tablets = f.db.listTablets(name);
    expect(tablets.length).toBeGreaterThan(2);
    expect(logs.some((l) => /^info: split tablet .* at "row\d+": size .* > split size/.test(l))).toBe(true);
    expect(logger.records.find((r) => r.fields?.event === 'tablet-split')?.fields).toMatchObject({
      table: `projects/${name.project}/instances/${name.instance}/tables/${name.table}`,
      cause: 'size',
      bytes: expect.any(Number),
      splitBytes: 8 * 1024,
      at: expect.stringMatching(/^row\d+$/),
    });
    expect(await keysOf(f, name)).toEqual(keys);
    // stats() counts each split logged (for /metrics).
    expect(f.db.stats().tabletSplits).toBe(logger.records.filter((r) => r.fields?.event === 'tablet-split').length);
    expect(f.db.stats().tabletSplits).toBe(tablets.length - 1);
    // SampleRowKeys reports the tablet boundaries.
    const samples = (await f.db.sampleRowKeys(name)).map((s) => s.key);
    for (const t of tablets.slice(1)) expect(samples).toContain(t.start);
    expect(samples[samples.length - 1]).toBe('');
    await f.db.close();
  });

  it('splits a tablet that stays hot where the sampled load divides, and reports a single hot row instead of splitting it', async () => {
    const logger = memoryLogger();
    const logs = logger.lines;
    const f = await open({ tabletSplitBytes: 1 << 30, loadSplitRequestsPerSec: 50, loadSplitWindowMillis: 3000 }, logger);
    const name = await createTable(f, [family('cf')]);
    const keys = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [setCell(value(10))] })),
    );
    await readLoad(f, name, keys, 6, 100);
    const tablets = f.db.listTablets(name);
    expect(tablets).toHaveLength(2);
    expect(tablets[1]!.start > 'k030' && tablets[1]!.start < 'k070').toBe(true);
    expect(logs.some((l) => l.includes('load '))).toBe(true);

    // One hot row: recognised, not split, however long it lasts.
    const hot = tablets[1]!.start;
    await readLoad(f, name, [hot], 12, 100);
    const after = f.db.listTablets(name);
    expect(after).toHaveLength(2);
    expect(after[1]!.singleRowHotspot).toMatchObject({ key: hot });
    expect(logs.filter((l) => l.includes('single-row hotspot'))).toHaveLength(1);
    expect(logger.records.find((r) => r.fields?.event === 'single-row-hotspot')?.fields).toMatchObject({
      rowKey: hot,
      share: expect.any(Number),
    });
    await f.db.close();
  });

  it('merges small cold neighbours, but never removes initial split boundaries', async () => {
    const logger = memoryLogger();
    const f = await open(
      { tabletSplitBytes: 1 << 30, loadSplitRequestsPerSec: 50, loadSplitWindowMillis: 3000, mergeColdMillis: 10_000 },
      logger,
    );
    const name = await createTable(f, [family('cf')], { splits: ['m'] });
    const keys = Array.from({ length: 60 }, (_, i) => `a${String(i).padStart(3, '0')}`);
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [setCell(value(10))] })),
    );
    await readLoad(f, name, keys, 6, 100);
    expect(f.db.listTablets(name).length).toBe(3);
    // Cold for longer than mergeColdMillis.
    for (let s = 0; s < 25; s++) {
      f.clock.advanceMillis(1000);
      await f.db.runTabletChecks();
    }
    const tablets = f.db.listTablets(name);
    expect(tablets.map((t) => t.start)).toEqual(['', 'm']);
    expect(logger.lines.some((l) => l.startsWith('info: merged tablets'))).toBe(true);
    expect(logger.records.find((r) => r.fields?.event === 'tablets-merged')?.fields).toMatchObject({
      tablets: [expect.any(String), expect.any(String)],
      bytes: expect.any(Number),
    });
    expect(f.db.stats().tabletMerges).toBe(logger.records.filter((r) => r.fields?.event === 'tablets-merged').length);
    expect(f.db.stats().tabletMerges).toBeGreaterThan(0);
    expect(await keysOf(f, name)).toEqual(keys);
    await f.db.close();
  });

  it('keeps every row through splits and merges under concurrent reads and writes', async () => {
    const f = await open({ tabletSplitBytes: 4 * 1024 });
    const name = await createTable(f, [family('cf')]);
    const written = new Set<string>();
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        if (i % 20 === 0) await new Promise((r) => setImmediate(r));
        const key = `w${String(i).padStart(5, '0')}`;
        await f.db.mutateRow(name, key, [setCell(value(100))]);
        written.add(key);
      }
    })();
    const reader = (async () => {
      while (!stop) {
        await new Promise((r) => setImmediate(r));
        const keys = await keysOf(f, name);
        // Every read is a consistent prefix of what was written: sorted, no gaps from a split.
        expect([...keys].sort()).toEqual(keys);
        // Many single keys in one request, read one by one while splits replace tablets.
        const some = keys.filter((_, i) => i % 7 === 0);
        const reader = f.db.readRows(name, { ...ALL, rows: { keys: some, ranges: [] } });
        const got: string[] = [];
        for (let r = await reader.next(); r !== undefined; r = await reader.next()) {
          got.push(r.key);
          await new Promise((res) => setImmediate(res));
        }
        expect(got).toEqual(some);
      }
    })();
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 5));
      await f.db.runTabletChecks();
    }
    stop = true;
    await Promise.all([writer, reader]);
    expect(f.db.listTablets(name).length).toBeGreaterThan(3);
    expect(new Set(await keysOf(f, name))).toEqual(written);
    await f.db.close();
  });
});

describe('nodes', () => {
  async function loadShares(keyOf: (i: number) => string): Promise<number[]> {
    const f = await openDb({ config: { nodes: 3, tabletSplitBytes: 1 << 30 } });
    const splits = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
    const name = await createTable(f, [family('cf')], { splits });
    for (let s = 0; s < 5; s++) {
      for (let i = 0; i < 300; i++) await f.db.mutateRow(name, keyOf(s * 300 + i), [setCell(value(50))]);
      f.clock.advanceMillis(1000);
    }
    await f.db.runTabletChecks();
    // Shares of the requests each node served (CPU-time shares follow them but are noisier).
    const [cluster] = f.db.listNodes(INSTANCE);
    const nodes = cluster!.nodes;
    const total = nodes.reduce((n, x) => n + x.requestsPerSec, 0);
    const shares = nodes.map((n) => n.requestsPerSec / total);
    await f.db.close();
    return shares;
  }

  it('a sequential (timestamp-leading) key funnels all writes to one tablet and node; salting spreads them', async () => {
    const t0 = 1_700_000_000_000;
    const sequential = await loadShares((i) => `${t0 + i}#sensor`);
    expect(Math.max(...sequential)).toBeGreaterThan(0.95);
    const salted = await loadShares((i) => `${i % 10}#${t0 + i}#sensor`);
    expect(Math.max(...salted)).toBeLessThan(0.6);
    expect(Math.min(...salted)).toBeGreaterThan(0.15);
  });
});

/** The memory engine, but every write spends `millis` on the thread: serving time the node model measures. */
function spinningEngine(millis: number): StorageEngine {
  const inner = createMemoryEngine();
  const spin = (): void => {
    const until = performance.now() + millis;
    while (performance.now() < until);
  };
  const spinning = (store: RowStore): RowStore =>
    new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'write') {
          return (batch: Parameters<RowStore['write']>[0]) => {
            spin();
            return target.write(batch);
          };
        }
        const v: unknown = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'openStore') return async (id: string) => spinning(await target.openStore(id));
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe("the node model: a cluster's serve nodes", () => {
  const splits = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  const tabletsPerNode = (f: Fixture, instance = INSTANCE): number[][] =>
    f.db.listNodes(instance).map((c) => c.nodes.map((n) => n.tablets));

  it('are --nodes for an implicit instance, and UpdateCluster rescales them at once: tablets spread onto new nodes and leave removed ones, each move logged', async () => {
    const logs: string[] = [];
    const f = await openDb({ config: { nodes: 3 }, logger: collecting(logs) });
    const name = await createTable(f, [family('cf')], { splits });
    expect(f.db.getCluster(INSTANCE, 'i-c1').serveNodes).toBe(3);
    expect(tabletsPerNode(f)).toEqual([[4, 3, 3]]);
    expect(f.db.listTablets(name).map((t) => t.placements.map((p) => p.cluster))).toEqual(Array(10).fill(['i-c1']));

    await f.db.updateCluster(INSTANCE, 'i-c1', { serveNodes: 5 });
    expect(tabletsPerNode(f)).toEqual([[2, 2, 2, 2, 2]]);
    expect(logs).toContain('cluster projects/p/instances/i/clusters/i-c1 resized from 3 to 5 nodes: serve_nodes set by an admin request');
    const moves = logs.filter((l) => l.startsWith('moved tablet'));
    expect(moves).toHaveLength(4);
    for (const m of moves)
      expect(m).toMatch(
        /^moved tablet \S+ of projects\/p\/instances\/i\/clusters\/i-c1 from node [0-2] to node [34]: cluster resized from 3 to 5 nodes; balance tablet count: /,
      );

    logs.length = 0;
    await f.db.updateCluster(INSTANCE, 'i-c1', { serveNodes: 2 });
    expect(tabletsPerNode(f)).toEqual([[5, 5]]);
    expect(
      logs.filter((l) => / from node [234] to node [01]: cluster resized from 5 to 2 nodes; node [234] is gone$/.test(l)),
    ).toHaveLength(6);
    expect(f.db.stats().tabletMoves).toBe(4 + 6);
    expect(f.db.listProjects()).toEqual(['p']);
    await f.db.close();
  });

  it('with several clusters, place every tablet in each cluster, on its own nodes, and rank hot tablets per cluster', async () => {
    const f = await openDb();
    const instance = { project: 'p', instance: 'replicated' };
    const location = (zone: string) => `projects/p/locations/${zone}`;
    await f.db.createInstance(
      instance,
      { displayName: 'Replicated', type: 'production', labels: {} },
      new Map([
        ['east-cluster', { location: location('us-east1-b'), serveNodes: 2, storageType: 'ssd' as const }],
        ['west-cluster', { location: location('us-west1-a'), serveNodes: 5, storageType: 'ssd' as const }],
      ]),
    );
    const name = await createTable(f, [family('cf')], { splits, name: { ...instance, table: 't' } });
    expect(tabletsPerNode(f, instance)).toEqual([
      [5, 5],
      [2, 2, 2, 2, 2],
    ]);
    expect(f.db.listTablets(name)[0]!.placements.map((p) => p.cluster)).toEqual(['east-cluster', 'west-cluster']);
    for (let i = 0; i < 50; i++) await f.db.mutateRow(name, `5-${i}`, [setCell(value(10))]);
    f.clock.advanceMillis(1000);
    const hot = f.db.listHotTablets(instance, 10);
    expect(hot.map((h) => h.cluster).sort()).toEqual(['east-cluster', 'west-cluster']);
    expect(new Set(hot.map((h) => h.start))).toEqual(new Set(['5']));
    expect(f.db.listHotTablets(instance, 10, 'west-cluster').map((h) => h.cluster)).toEqual(['west-cluster']);
    await f.db.close();
  });

  it('follow autoscaling: up at once on measured serving time, down after the delay, 10% at a time, each change logged with its figures and kept in the catalog', async () => {
    const logs: string[] = [];
    const f = await openDb({
      engine: spinningEngine(10),
      config: { nodes: 1, autoscaleDownDelayMillis: 60_000 },
      logger: collecting(logs),
    });
    const name = await createTable(f, [family('cf')], { splits });
    await f.db.updateCluster(INSTANCE, 'i-c1', { autoscaling: { minServeNodes: 1, maxServeNodes: 4, cpuUtilizationPercent: 10 } });
    // 20 writes of 10 ms per second: 0.2 s of serving per second, twice the 10% target of one node.
    for (let s = 0; s < 10; s++) {
      for (let i = 0; i < 20; i++) await f.db.mutateRow(name, `${i % 10}-${s}`, [setCell(value(10))]);
      f.clock.advanceMillis(1000);
    }
    await f.db.runTabletChecks();
    expect(f.db.getCluster(INSTANCE, 'i-c1').serveNodes).toBe(3);
    expect(logs.find((l) => l.includes('resized from 1 to 3'))).toMatch(
      /^cluster projects\/p\/instances\/i\/clusters\/i-c1 resized from 1 to 3 nodes: autoscaling: CPU 2\d\.\d% of 1 node over the last 10 s \(target 10%\); 3 nodes bring it within target$/,
    );
    // Which node keeps the fourth tablet depends on measured (real) serving time; the counts do not.
    expect(tabletsPerNode(f)[0]!.slice().sort()).toEqual([3, 3, 4]);
    expect(f.db.listNodes(INSTANCE)[0]!.servingUtilization).toBeGreaterThan(0.06);
    expect(f.db.catalogState().instances[0]!.clusters[0]!.serveNodes).toBe(3);

    // Idle: one node would do, but the size holds for the delay, then shrinks a node at a time.
    const nodesAfter = async (seconds: number): Promise<number> => {
      for (let s = 0; s < seconds; s++) {
        f.clock.advanceMillis(1000);
        await f.db.runTabletChecks();
      }
      return f.db.getCluster(INSTANCE, 'i-c1').serveNodes;
    };
    expect(await nodesAfter(59)).toBe(3);
    expect(await nodesAfter(1)).toBe(2);
    expect(logs.find((l) => l.includes('resized from 3 to 2'))).toMatch(
      /autoscaling: CPU .* 1 node would do; scaling down by at most 10% of the nodes once the size has held for 60 s$/,
    );
    expect(await nodesAfter(59)).toBe(2);
    expect(await nodesAfter(1)).toBe(1);
    expect(tabletsPerNode(f)).toEqual([[10]]);

    // Raising the minimum takes effect at once; clearing autoscaling keeps the count.
    await f.db.updateCluster(INSTANCE, 'i-c1', { autoscaling: { minServeNodes: 2 } });
    expect(tabletsPerNode(f)).toEqual([[5, 5]]);
    await f.db.updateCluster(INSTANCE, 'i-c1', { autoscaling: null });
    expect(await nodesAfter(200)).toBe(2);
    await f.db.close();
  });
});

describe('tablet splits and DropRowRange', () => {
  it('a DropRowRange that arrives while a split is being recorded drops the rows from both children, for good', async () => {
    const fs = new MemoryFileSystem();
    const config = { memtableBytes: 16 * 1024, blockBytes: 1024 };
    const disk = await openDiskEngine({ fs, dir: 'db', config });
    let drop: Promise<void> | undefined;
    let f: Fixture | undefined;
    // The engine starts recording the split; the drop request comes in at that very moment.
    const engine = new Proxy(disk, {
      get(target, prop, receiver) {
        if (prop !== 'splitStore') return Reflect.get(target, prop, receiver) as unknown;
        return (parent: string, at: string, left: string, right: string, meta: { key: string; value: () => string }) =>
          target.splitStore(parent, at, left, right, {
            key: meta.key,
            value: () => {
              drop ??= Promise.resolve(f!.db.dropRowRange(name, { kind: 'prefix', prefix: 'row01' }));
              return meta.value();
            },
          });
      },
    });
    f = await openDb({ engine, config: { tabletSplitBytes: 8 * 1024 } });
    const name = await createTable(f, [family('cf')]);
    const keys = Array.from({ length: 200 }, (_, i) => `row${String(i).padStart(4, '0')}`);
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [setCell(value(200))] })),
    );
    await f.db.runTabletChecks();
    expect(f.db.listTablets(name).length).toBe(2);
    await drop;
    const kept = keys.filter((k) => !k.startsWith('row01'));
    expect(await keysOf(f, name)).toEqual(kept);
    await f.db.close();
    const again = await openDb({ engine: await openDiskEngine({ fs, dir: 'db', config }), config: { tabletSplitBytes: 8 * 1024 } });
    expect(await keysOf(again, name)).toEqual(kept);
    await again.db.close();
  });
});

describe('autoscaling against admin calls', () => {
  it('a cluster changed by an admin call while the autoscaler runs keeps that change, wherever the call comes in', async () => {
    const f = await openDb({ engine: createAsyncEngine(), config: { autoscaleDownDelayMillis: 0 } });
    const instance = { project: 'p', instance: 'scaled' };
    const autoscaling = { minServeNodes: 1, maxServeNodes: 10, cpuUtilizationPercent: 50 };
    const cluster = (zone: string) => ({
      location: `projects/p/locations/${zone}`,
      serveNodes: 3,
      storageType: 'ssd' as const,
      autoscaling: { ...autoscaling, storageUtilizationGibPerNode: 0 },
    });
    await f.db.createInstance(
      instance,
      { displayName: 'Scaled', type: 'production', labels: {} },
      new Map([
        ['east-1', cluster('us-east1-b')],
        ['west-1', cluster('us-west1-a')],
      ]),
    );
    const reset = async (): Promise<void> => {
      for (const id of ['east-1', 'west-1']) {
        await f.db.updateCluster(instance, id, { autoscaling: null, serveNodes: 3 });
        await f.db.updateCluster(instance, id, { autoscaling });
      }
    };
    // Idle, both autoscaled clusters shrink.
    await f.db.runTabletChecks();
    expect(['east-1', 'west-1'].map((id) => f.db.getCluster(instance, id).serveNodes)).toEqual([2, 2]);
    const points = await raceAtEveryPoint({
      setup: reset,
      first: () => f.db.runTabletChecks(),
      // Cluster west-1 to manual scaling with 5 nodes: whether before or after the autoscaler's round, it ends so.
      second: async () => f.db.updateCluster(instance, 'west-1', { autoscaling: null, serveNodes: 5 }),
      check: (_first, _second, point) => {
        expect(f.db.getCluster(instance, 'west-1'), point).toMatchObject({ serveNodes: 5, autoscaling: undefined });
      },
    });
    expect(points).toBeGreaterThan(16);
    await f.db.close();
  });
});
