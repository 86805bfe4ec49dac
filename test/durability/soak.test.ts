import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { Random } from '../../src/testing/random.js';
import { nodeClient } from '../harness/node-client.js';
import { positiveInt } from './env-knobs.js';
import { type DurableServer, startDurable } from './durable-server.js';

/**
 * A soak: mixed load through the official Node client (bulk writes that
 * overwrite a key space with one version kept, point reads, range scans,
 * increments of hot rows) on a durable server with small memtables (so that
 * flushes and compactions run all the time), killed with SIGKILL and
 * restarted every `KILL_EVERY` seconds. The server's RSS and open file
 * descriptors are sampled every second. Within each life of the server,
 * once it has warmed up, they must stay flat: the descriptors within a few
 * of where they were after warm-up, the RSS not still climbing in the last
 * third of the life. Every acknowledged increment must be counted after each
 * restart.
 *
 *   TABLETOP_SOAK_SECONDS=1800        the long run (default 20 s)
 *   TABLETOP_SOAK_KILL_SECONDS=300    seconds between kills (default: half the run, at most 300)
 *   TABLETOP_SOAK_REPORT=file.json    write every sample there
 *   TABLETOP_DURABILITY_SEED=1234     repeat the run's choices
 */
const SECONDS = positiveInt('TABLETOP_SOAK_SECONDS', 20);
const KILL_EVERY = positiveInt('TABLETOP_SOAK_KILL_SECONDS', Math.min(300, Math.max(5, Math.floor(SECONDS / 2))));
const SEED = Random.seedFrom('TABLETOP_DURABILITY_SEED');
const KEYS = 200_000;
const HOT_ROWS = 8;
const MiB = 1024 * 1024;

interface Sample {
  readonly life: number;
  readonly t: number;
  readonly rssBytes: number;
  readonly fds: number;
  readonly ops: number;
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

describe('soak: mixed load with kills and restarts', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-soak-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    `RSS and open files stay flat through ${SECONDS} s of mixed load, killed every ${KILL_EVERY} s (TABLETOP_DURABILITY_SEED=${SEED})`,
    async () => {
      const args = ['--memtable-size', '1MiB', '--cache-size', '16MiB'];
      let server: DurableServer = await startDurable({ dataDir, args });
      let client: Bigtable = nodeClient(server);
      let table: Table = client.instance('i').table('t');
      await table.create({ families: [{ name: 'cf', rule: { versions: 1 } }] });
      const random = new Random(SEED);
      const value = Buffer.alloc(200, 7);
      const acked = new Map<string, number>();
      let ops = 0;
      let life = 0;
      let lifeStarted = performance.now();
      const samples: Sample[] = [];
      const until = performance.now() + SECONDS * 1000;
      let up: Promise<void> = Promise.resolve();

      const loop = async (op: (r: Random) => Promise<unknown>, id: number): Promise<void> => {
        const r = new Random(SEED + id + 1);
        while (performance.now() < until) {
          await up;
          try {
            await op(r);
            ops++;
          } catch {
            // The server was killed under it: a failed call, retried with the next.
            await new Promise((res) => setTimeout(res, 20));
          }
        }
      };
      const key = (r: Random): string => `k${String(r.below(KEYS)).padStart(6, '0')}`;
      const workers = [
        loop((r) => table.insert(Array.from({ length: 50 }, () => ({ key: key(r), data: { cf: { v: value } } }))), 0),
        loop((r) => table.insert(Array.from({ length: 50 }, () => ({ key: key(r), data: { cf: { v: value } } }))), 1),
        loop(
          (r) =>
            table
              .row(key(r))
              .get()
              .catch((e: { code?: number }) => (e.code === 5 ? undefined : Promise.reject(e))),
          2,
        ),
        loop(async (r) => {
          const start = key(r);
          await table.getRows({ ranges: [{ start, end: `${start}~` }], limit: 100 });
        }, 3),
        loop(async (r) => {
          const hot = `hot-${r.below(HOT_ROWS)}`;
          const t = table;
          await t.row(hot).increment('cf:c', 1);
          acked.set(hot, (acked.get(hot) ?? 0) + 1);
        }, 4),
      ];

      const sampler = setInterval(() => {
        try {
          const rss = server.rssBytes();
          // (Not while it is being killed: a dying process has no RSS.)
          if (!Number.isFinite(rss) || server.exited()) return;
          samples.push({
            life,
            t: (performance.now() - lifeStarted) / 1000,
            rssBytes: rss,
            fds: readdirSync(`/proc/${server.pid}/fd`).length,
            ops,
          });
        } catch {
          // Between a kill and the restart.
        }
      }, 1000);

      const killer = (async () => {
        for (;;) {
          const next = lifeStarted + KILL_EVERY * 1000;
          if (next >= until) return;
          await new Promise((res) => setTimeout(res, next - performance.now()));
          let restarted!: () => void;
          up = new Promise((res) => (restarted = res));
          await server.kill9();
          void client.close();
          server = await startDurable({ dataDir, args });
          client = nodeClient(server);
          table = client.instance('i').table('t');
          life++;
          lifeStarted = performance.now();
          // Every acknowledged increment is there (unacknowledged ones may be too).
          for (const [hot, n] of acked) {
            const [row] = await table.row(hot).get();
            const counted = Number((row.data as { cf: { c: { value: number }[] } }).cf.c[0]!.value);
            expect(counted, `${hot} after restart ${life}`).toBeGreaterThanOrEqual(n);
          }
          restarted();
          if (SECONDS > 60) console.log(`soak: restart ${life} at ${ops} operations`);
        }
      })();

      try {
        await Promise.all([killer, ...workers]);
      } finally {
        clearInterval(sampler);
        void client.close();
        await server.stop();
      }
      if (process.env['TABLETOP_SOAK_REPORT']) writeFileSync(process.env['TABLETOP_SOAK_REPORT'], JSON.stringify(samples));

      const lines: string[] = [];
      for (let l = 0; l <= life; l++) {
        const of = samples.filter((s) => s.life === l);
        // After warm-up (the first third of the life, at least 3 s): JIT, memtables, cache and connections settled.
        const warm = of.filter((s) => s.t >= Math.max(3, of.at(-1)!.t / 3));
        if (warm.length < 3) continue;
        const lastThird = warm.filter((s) => s.t >= (2 * of.at(-1)!.t) / 3);
        const fdsAfterWarmUp = warm[0]!.fds;
        const maxFds = Math.max(...warm.map((s) => s.fds));
        const rssSlope = slope(lastThird.map((s) => ({ x: s.t, y: s.rssBytes / MiB })));
        const maxRss = Math.max(...warm.map((s) => s.rssBytes));
        lines.push(
          `life ${l}: ${of.at(-1)!.t.toFixed(0)} s, files ${fdsAfterWarmUp} after warm-up, at most ${maxFds}; RSS at most ${(maxRss / MiB).toFixed(0)} MiB, ${(rssSlope * 60).toFixed(1)} MiB/min over the last third`,
        );
        expect(maxFds - fdsAfterWarmUp, `open files grew in life ${l}: ${lines.at(-1)}`).toBeLessThanOrEqual(24);
        // A leak climbs for as long as the load runs; memtables, cache and heap reach their budgets and stop.
        if (lastThird.length >= 10) expect(rssSlope * 60, `RSS still climbing in life ${l}: ${lines.at(-1)}`).toBeLessThan(20);
        expect(maxRss, `RSS in life ${l}`).toBeLessThan(1024 * MiB);
      }
      console.log(`soak: ${ops} operations in ${SECONDS} s, ${life} kills; ${samples.length} samples\n${lines.join('\n')}`);
      expect(ops).toBeGreaterThan(100);
    },
    SECONDS * 1000 + 120_000,
  );
});
