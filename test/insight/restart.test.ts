/**
 * The recording survives a restart: a durable server records a few seconds
 * of writes, stops, starts again on the same data directory, and the heatmap
 * still has the columns from before the stop (the gap while it was down is
 * empty).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import { INSTANCE, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { BUCKET_MILLIS, columnsOf, heatmap, paced, settle, startInsightServer, total, writeRows } from './insight-harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-insight-restart-'));
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the recording across a restart', () => {
  it('keeps the columns recorded before the stop', async () => {
    ({ server } = await startInsightServer({ dataDir }));
    const table = uniqueTableId('kv-restart');
    let client = nodeClient(server);
    await client
      .instance(INSTANCE)
      .table(table)
      .create({ families: ['cf'] });
    const from = Date.now();
    let n = 0;
    await paced(3_000, 100, () =>
      writeRows(
        client.instance(INSTANCE).table(table),
        Array.from({ length: 4 }, () => `ev#${String(n++).padStart(6, '0')}`),
      ),
    );
    await settle();
    const stoppedAt = Date.now();
    const before = await heatmap(server, table, { metric: 'write_ops', from, to: stoppedAt });
    const columnsBefore = columnsOf(before).filter((c) => total(c) > 0).length;
    expect(columnsBefore).toBeGreaterThanOrEqual(3);
    await client.close();
    await server.stop();

    ({ server } = await startInsightServer({ dataDir }));
    client = nodeClient(server);
    const after = await heatmap(server, table, { metric: 'write_ops', from, to: stoppedAt });
    const columns = columnsOf(after);
    // Every column that had writes before the stop is back, with the same rows written.
    expect(columns.filter((c) => total(c) > 0).length).toBe(columnsBefore);
    expect(total(columns.map((c) => total(c) * after.resolutionSeconds))).toBeCloseTo(n, 0);
    expect(after.resolutionSeconds * 1000).toBe(BUCKET_MILLIS);
    // New traffic after the restart lands in new columns, after the gap (a column later than the stop, however fast the restart).
    await settle(1);
    const restartedAt = Date.now();
    await writeRows(client.instance(INSTANCE).table(table), ['ev#999999']);
    await settle();
    const now = await heatmap(server, table, { metric: 'write_ops', from });
    const times = now.times.map((t) => Date.parse(t));
    const written = columnsOf(now).map((c, i) => ({ at: times[i]!, rows: total(c) * now.resolutionSeconds }));
    expect(written.filter((c) => c.at >= restartedAt - BUCKET_MILLIS && c.rows > 0).map((c) => Math.round(c.rows))).toEqual([1]);
    expect(total(written.filter((c) => c.at < stoppedAt).map((c) => c.rows))).toBeCloseTo(n, 0);
    await client.close();
  }, 30_000);
});
