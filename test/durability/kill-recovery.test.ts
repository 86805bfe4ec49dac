import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bigtable } from '@google-cloud/bigtable';
import { nodeClient } from '../harness/node-client.js';
import { positiveInt } from './env-knobs.js';
import { CrashWorkload, counterKeys, createTables, rowKeys, verifyAll } from './crash-workload.js';
import { liveSstNumbers, readDataDir } from './data-dir.js';
import { type DurableServer, killGuardedServer, spawnDurable, startDurable } from './durable-server.js';
import { ExpectedState } from './expected-state.js';
import { Random } from '../../src/testing/random.js';

/**
 * kill -9 under load, in the manner of RocksDB's db_crashtest: a driver that
 * is never killed sends writes through the official Node client, SIGKILLs the
 * server at a random moment, restarts it on the same data directory and
 * checks every row, counter and table against what was acknowledged (see
 * expected-state.ts). The load (crash-workload.ts) mixes MutateRows batches,
 * single-row writes, deletes, DropRowRange, ReadModifyWrite increments and
 * table creation and deletion, with readers checking rows as they go. Small
 * memtables make flushes and compactions happen under the load, so crashes
 * land in the middle of them too; every fifth crash hits the server while it
 * is still starting (recovering).
 *
 *   TABLETOP_KILL_CYCLES=200        more cycles (default 25)
 *   TABLETOP_DURABILITY_SEED=1234   repeat the choices of a run (timing still varies)
 *   TABLETOP_KEEP_DATA=1            keep the data directory (its path is in the failure message)
 *   TABLETOP_KILL_SERVER_ARGS='--nodes 1'   more `serve` options
 *   TABLETOP_KILL_SNAPSHOTS=1       copy the data directory after each kill, before recovery
 *                                   touches it (the last three, as <data dir>.crash-<cycle>)
 */

const CYCLES = positiveInt('TABLETOP_KILL_CYCLES', 25);
const SEED = Random.seedFrom('TABLETOP_DURABILITY_SEED');
const ROWS = 600;
const COUNTERS = 8;
const WRITERS = 12;
const READERS = 2;
// 64 KiB memtables: a flush every few dozen writes, a compaction every few flushes.
// 32 KiB tablets: the row table's tablets split under the load (the server checks every second).
const SERVER_ARGS = [
  '--memtable-size',
  '64KiB',
  '--cache-size',
  '1MiB',
  '--split-size',
  '32KiB',
  // Small commit-log files, so that logs rotate and flushed ones are written over (reused) under the kills.
  '--wal-file-size',
  '256KiB',
  // SSTables built on a worker thread (the default on any machine; said here so that it stays tested), so kills
  // land while a worker is mid-build and its bytes are half-written.
  '--background-threads',
  '1',
  ...(process.env['TABLETOP_KILL_SERVER_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('kill -9 under load through the real server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-kill-'));
  let server: DurableServer | undefined;
  let client: Bigtable | undefined;
  let passed = false;

  afterAll(async () => {
    void client?.close();
    await server?.kill9();
    if (passed && process.env['TABLETOP_KEEP_DATA'] === undefined) {
      for (const dir of readdirSync(path.dirname(dataDir))) {
        if (dir.startsWith(`${path.basename(dataDir)}.crash-`))
          rmSync(path.join(path.dirname(dataDir), dir), { recursive: true, force: true });
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it(
    `keeps every acknowledged write across ${CYCLES} crashes (TABLETOP_DURABILITY_SEED=${SEED})`,
    async () => {
      const rng = new Random(SEED);
      const keys = rowKeys(ROWS);
      const counters = counterKeys(COUNTERS);
      const expected = new ExpectedState(keys, counters);
      const workload = new CrashWorkload(expected, rng, keys, counters);
      const where = (cycle: number): string => `seed ${SEED}, cycle ${cycle}, data dir ${dataDir}`;
      const totals = { acked: 0, sent: 0, increments: 0, reads: 0, startupKills: 0, verifiedRows: 0 };
      const sstSeen = new Set<number>();
      let sstRetired = 0;

      const checkState = async (cycle: number, when: string, s: DurableServer, c: Bigtable): Promise<void> => {
        let problems: string[];
        try {
          problems = await verifyAll(c, workload);
        } catch (e) {
          throw new Error(
            `reading back ${when} failed (${where(cycle)}): ${e instanceof Error ? e.message : String(e)}\nserver output:\n${s.output()}`,
            { cause: e },
          );
        }
        if (problems.length > 0) {
          throw new Error(
            `${when} (${where(cycle)}), ${problems.length} problems:\n  ${problems.slice(0, 25).join('\n  ')}\nserver output:\n${s.output()}`,
          );
        }
        totals.verifiedRows += expected.liveRowCount();
      };

      const observeFiles = (): void => {
        const live = liveSstNumbers(readDataDir(dataDir));
        for (const n of [...sstSeen]) {
          if (!live.has(n)) {
            sstRetired++;
            sstSeen.delete(n);
          }
        }
        for (const n of live) sstSeen.add(n);
      };

      const restart = async (cycle: number): Promise<DurableServer> => {
        try {
          return await startDurable({ dataDir, args: SERVER_ARGS });
        } catch (e) {
          throw new Error(`the server did not come back (${where(cycle)}): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
        }
      };

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        // Every fifth cycle, crash the server while it starts: during recovery (replay, flush, manifest rewrite).
        if (cycle % 5 === 4) {
          const { child, ready } = spawnDurable({ dataDir, args: SERVER_ARGS });
          ready.catch(() => undefined);
          await sleep(rng.int(0, 700));
          await killGuardedServer(child);
          totals.startupKills++;
          continue;
        }

        server = await restart(cycle);
        client = nodeClient(server);
        if (cycle === 0) await createTables(client, keys);
        else await checkState(cycle, 'after recovering from the last crash', server, client);

        const load = workload.start(client, cycle, WRITERS, READERS);
        await sleep(rng.int(150, 1500));
        load.freeze();
        await server.kill9();
        const serverOutput = server.output();
        if (process.env['TABLETOP_KILL_SNAPSHOTS'] !== undefined) {
          cpSync(dataDir, `${dataDir}.crash-${cycle}`, { recursive: true });
          rmSync(`${dataDir}.crash-${cycle - 3}`, { recursive: true, force: true });
        }
        void client.close();
        client = undefined;
        server = undefined;
        if (load.unexpected.length > 0) {
          throw new Error(
            `problems during the load, while the server was up (${where(cycle)}):\n  ${load.unexpected.slice(0, 10).join('\n  ')}\nserver output:\n${serverOutput}`,
          );
        }
        totals.acked += load.stats.acked;
        totals.sent += load.stats.sent;
        totals.increments += load.stats.increments;
        totals.reads += load.stats.reads;
        observeFiles();
      }

      // Recover once more and check; then a clean stop and start must give exactly the same data.
      server = await restart(CYCLES);
      client = nodeClient(server);
      await checkState(CYCLES, 'after recovering from the last crash', server, client);
      // A last load without a crash: once drained nothing is pending, so the checks below are exact.
      const load = workload.start(client, CYCLES, WRITERS, READERS);
      await sleep(300);
      await load.drain();
      expect(load.unexpected).toEqual([]);
      await checkState(CYCLES, 'after a load without a crash, on the same server', server, client);
      await client.close();
      await server.stop();
      server = await restart(CYCLES);
      client = nodeClient(server);
      await checkState(CYCLES, 'after a clean stop and start', server, client);
      await client.close();
      client = undefined;
      await server.stop();
      server = undefined;
      observeFiles();

      // The load must have been big enough to flush and compact, or the test proves little.
      expect(totals.acked).toBeGreaterThan(CYCLES * 20);
      expect(sstRetired, 'no SSTable was ever replaced by a compaction').toBeGreaterThan(0);
      console.log(
        `kill -9 test: ${CYCLES} cycles (${totals.startupKills} during start-up), ${totals.sent} row writes sent, ${totals.acked} acknowledged, ` +
          `${totals.increments} increments acknowledged, ${totals.reads} concurrent reads checked, ${totals.verifiedRows} live rows verified; ` +
          `writes in flight at a crash: ${expected.crashOutcomes.survived} survived, ${expected.crashOutcomes.lost} lost; ${sstRetired} SSTables retired by compactions; seed ${SEED}`,
      );
      passed = true;
    },
    60_000 + CYCLES * 8_000,
  );
});
