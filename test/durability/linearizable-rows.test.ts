import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Random } from '../../src/testing/random.js';
import { positiveInt } from './env-knobs.js';
import { runLinearizability } from './linearizability/run.js';

/**
 * Single-row operations are atomic and strongly consistent (Bigtable's
 * promise, and tabletop's: docs/reliability.md): concurrent clients run
 * reads, writes, CheckAndMutateRow and ReadModifyWriteRow on a few hot rows
 * while the server is killed with SIGKILL and restarted, and each row's
 * history must be linearizable (linearizability/checker.ts).
 *
 *   TABLETOP_LINEARIZABILITY_SECONDS=600   the long run (default 12 s)
 *   TABLETOP_DURABILITY_SEED=1234          repeat the choices of a run (timing still varies)
 */
const SEED = Random.seedFrom('TABLETOP_DURABILITY_SEED');
const SECONDS = positiveInt('TABLETOP_LINEARIZABILITY_SECONDS', 12);

describe('single-row linearizability under kill -9', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-linearizable-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    `every row's history of reads, writes, check-and-mutates and increments is linearizable across crashes (TABLETOP_DURABILITY_SEED=${SEED})`,
    async () => {
      const report = await runLinearizability({
        dataDir,
        seed: SEED,
        seconds: SECONDS,
        workers: 8,
        rows: 3,
        rowSeconds: 10,
        killEveryMillis: 2500,
        progress: SECONDS > 60 ? (line) => console.log(line) : undefined,
      });
      const explored = report.rows.reduce((s, r) => s + r.result.explored, 0);
      const summary = `${report.ops} operations (${report.unknown} of unknown outcome, ${report.readsDropped} failed reads dropped) on ${report.rows.length} rows, ${report.kills} kills in ${SECONDS} s, checked in ${Math.round(report.checkMillis)} ms (${explored} configurations searched); seed ${SEED}`;
      console.log(`linearizability: ${summary}`);
      for (const r of report.rows)
        expect(r.result.linearizable, `row ${r.row} is not linearizable:\n${r.explanation}\n${summary}`).toBe(true);
      // The run did what it says: crashes happened, and every kind of operation was answered.
      expect(report.kills).toBeGreaterThanOrEqual(Math.floor(SECONDS / 5));
      expect(report.ops).toBeGreaterThan(200);
    },
    SECONDS * 1000 + 120_000,
  );
});
