/**
 * `serve --insight off` (startServer({ insight: false })): nothing is
 * recorded, and the heatmap and diagnostics answer 412 FailedPrecondition
 * saying so; the rest of the HTTP API works as ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import { INSTANCE, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { getJson, startInsightServer, tablePath, writeRows } from './insight-harness.js';

let server: RunningServer;
const table = uniqueTableId('kv-off');

beforeAll(async () => {
  ({ server } = await startInsightServer({ insight: false }));
  const client = nodeClient(server);
  const t = client.instance(INSTANCE).table(table);
  await t.create({ families: ['cf'] });
  await writeRows(t, ['a', 'b', 'c']);
  await client.close();
});

afterAll(async () => {
  await server?.stop();
});

describe('recording off', () => {
  it('answers 412 with "recording is off (--insight off)" for the heatmap and the diagnostics', async () => {
    for (const what of ['heatmap?metric=write_ops', 'diagnostics']) {
      const { status, body } = await getJson<{ error: { code: string; message: string } }>(server, `${tablePath(table)}/${what}`);
      expect([what, status, body.error.code]).toEqual([what, 412, 'FailedPrecondition']);
      expect(body.error.message).toContain('recording is off (--insight off)');
    }
  });

  it('still answers 404 for an unknown table and 400 for a bad query, and serves the table', async () => {
    expect((await getJson(server, `${tablePath('nope')}/heatmap`)).status).toBe(404);
    expect((await getJson(server, `${tablePath(table)}/heatmap?metric=nope`)).status).toBe(400);
    const { status, body } = await getJson<{ rowCount: number; tabletCount: number }>(server, tablePath(table));
    expect(status).toBe(200);
    expect(body).toMatchObject({ rowCount: 3, tabletCount: 1 });
  });
});
