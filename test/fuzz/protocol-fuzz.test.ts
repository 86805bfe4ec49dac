import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawClients, unaryCall } from '../../src/server/testing/raw-client.js';
import { Random } from '../../src/testing/random.js';
import { positiveInt } from '../durability/env-knobs.js';
import { startDurable } from '../durability/durable-server.js';
import { fuzzProtocol } from './protocol-fuzz.js';

/**
 * Protocol fuzzing (protocol-fuzz.ts) against a real durable server: every
 * answer a deliberate gRPC status within the deadline, no error logged, the
 * server alive and serving at the end, and its memory flat once warmed up
 * (the block cache is held to 16 MiB: fuzzed writes keep adding data, and
 * a full default cache would be 128 MiB of growth that is not a leak).
 *
 *   TABLETOP_FUZZ_REQUESTS=1000000   the long run (default 20,000, about 10 s)
 *   TABLETOP_FUZZ_SEED=1234          the run's seed (default fixed, so that CI repeats itself)
 *   TABLETOP_FUZZ_REPORT=file.json   write the run's figures there
 */
const REQUESTS = positiveInt('TABLETOP_FUZZ_REQUESTS', 20_000);
const SEED = process.env['TABLETOP_FUZZ_SEED'] === undefined ? 20261128 : Random.seedFrom('TABLETOP_FUZZ_SEED');
const MiB = 1024 * 1024;
const INSTANCE = 'projects/fuzz/instances/i0';

describe('protocol fuzzing', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-fuzz-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`answers ${REQUESTS} generated and damaged requests to every method deliberately (TABLETOP_FUZZ_SEED=${SEED})`, async () => {
    const server = await startDurable({ dataDir, args: ['--memtable-size', '4MiB', '--cache-size', '16MiB'] });
    const clients = rawClients(server.address);
    /** The resources fuzzed requests name, put back from time to time (fuzzed deletes remove them). */
    const setup = async (): Promise<void> => {
      const quiet = (p: Promise<unknown>): Promise<unknown> => p.catch(() => undefined);
      await quiet(
        unaryCall(clients.instanceAdmin, 'CreateInstance', {
          parent: 'projects/fuzz',
          instanceId: 'i0',
          instance: { displayName: 'fuzz' },
          clusters: { c0: { location: 'projects/fuzz/locations/us-east1-b', serveNodes: 1 } },
        }),
      );
      for (const t of ['t0', 't1']) {
        await quiet(
          unaryCall(clients.tableAdmin, 'CreateTable', {
            parent: INSTANCE,
            tableId: t,
            table: {
              columnFamilies: {
                cf: { gcRule: { maxNumVersions: 3 } },
                agg: { valueType: { aggregateType: { inputType: { int64Type: {} }, sum: {} } } },
              },
            },
          }),
        );
        await quiet(
          unaryCall(clients.data, 'MutateRow', {
            tableName: `${INSTANCE}/tables/${t}`,
            rowKey: Buffer.from('a'),
            mutations: [
              { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '-1', value: Buffer.from('v') } },
            ],
          }),
        );
      }
      await quiet(
        unaryCall(clients.tableAdmin, 'CreateAuthorizedView', {
          parent: `${INSTANCE}/tables/t0`,
          authorizedViewId: 'v0',
          authorizedView: {
            subsetView: { rowPrefixes: [Buffer.from('a')], familySubsets: { cf: { qualifierPrefixes: [Buffer.from('')] } } },
          },
        }),
      );
    };
    let rssAfterWarmup = 0;
    let rssMax = 0;
    const started = performance.now();
    try {
      const report = await fuzzProtocol({
        address: server.address,
        requests: REQUESTS,
        seed: SEED,
        setup,
        progressEvery: Math.max(1000, Math.floor(REQUESTS / 20)),
        progress: (r) => {
          const rss = server.rssBytes();
          if (rssAfterWarmup === 0 && r.requests >= REQUESTS / 10) rssAfterWarmup = rss;
          rssMax = Math.max(rssMax, rss);
          const rate = r.requests / ((performance.now() - started) / 1000);
          console.log(
            `fuzz: ${r.requests}/${REQUESTS} requests (${rate.toFixed(0)}/s), ${r.failures.length} failures, server RSS ${(rss / MiB).toFixed(0)} MiB`,
          );
        },
      });
      const seconds = (performance.now() - started) / 1000;
      const rssEnd = server.rssBytes();
      const summary = {
        ...report,
        seconds: Math.round(seconds),
        rssAfterWarmupMiB: Math.round(rssAfterWarmup / MiB),
        rssMaxMiB: Math.round(Math.max(rssMax, rssEnd) / MiB),
        rssEndMiB: Math.round(rssEnd / MiB),
      };
      const file = process.env['TABLETOP_FUZZ_REPORT'];
      if (file !== undefined && file !== '') writeFileSync(file, JSON.stringify(summary, null, 2));
      console.log(`fuzz: ${JSON.stringify({ ...summary, byMethod: undefined, failures: summary.failures.slice(0, 5) })}`);
      if (report.failures.length > 0) console.log(`server output, last lines:\n${server.output().split('\n').slice(-40).join('\n')}`);
      expect(report.failures.slice(0, 10)).toEqual([]);
      expect(report.requests).toBe(REQUESTS);
      // Every method was reached.
      expect(Object.keys(report.byMethod).length).toBeGreaterThan(60);
      expect(server.exited()).toBe(false);
      await expect(unaryCall(clients.data, 'PingAndWarm', { name: INSTANCE })).resolves.toEqual({});
      expect(
        server
          .output()
          .split('\n')
          .filter((l) => / ERROR /.test(l)),
      ).toEqual([]);
      // Memory flat once warmed up (the figures of long runs are in docs/reliability.md).
      if (rssAfterWarmup > 0) expect(rssEnd - rssAfterWarmup).toBeLessThan(256 * MiB);
    } finally {
      clients.close();
      await server.stop();
    }
  }, 3_600_000);
});
