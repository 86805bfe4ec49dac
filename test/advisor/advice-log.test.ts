/**
 * The schema advisor's warning in the server log: a real server (recording
 * on, its advisor pass every 300 ms) and the official Node client writing
 * timestamp-first keys in time order; the danger is logged once, with its
 * fields, however many passes see it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import type { LogFields } from '../../src/server/logger.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { paced, startInsightServer, writeRows } from '../insight/insight-harness.js';

let server: RunningServer;
const records: { level: string; message: string; fields: LogFields | undefined }[] = [];

beforeAll(async () => {
  const at = (level: string) => (message: string, fields?: LogFields) => void records.push({ level, message, fields });
  ({ server } = await startInsightServer({
    logger: { info: at('info'), warn: at('warn'), error: at('error') },
    tuning: { schemaAdviceMillis: 300 },
  }));
});

afterAll(async () => {
  await server?.stop();
});

it('logs a danger finding once per table and rule: timestamp-leading keys written in time order', async () => {
  const bigtable = nodeClient(server);
  const id = uniqueTableId('ts-first');
  const [table] = await bigtable.instance(INSTANCE).createTable(id, { families: ['cf'] });
  const t0 = Date.parse('2026-05-01T12:00:00Z');
  // 40 batches 60 ms apart (the recording keeps one written key per 50 ms), 10 rows each, timestamps rising.
  await paced(2400, 60, (b) =>
    writeRows(
      table,
      Array.from({ length: 10 }, (_, i) => `${new Date(t0 + (b * 10 + i) * 1000).toISOString()}#sensor${(b + i) % 7}`),
    ),
  );
  const name = `projects/${PROJECT}/instances/${INSTANCE}/tables/${id}`;
  const advice = () => records.filter((r) => r.fields?.['event'] === 'schema-advice' && r.fields['table'] === name);
  const end = Date.now() + 15_000;
  while (advice().length === 0 && Date.now() < end) await sleep(100);
  // More passes over the same table with more traffic: nothing new.
  await writeRows(table, [`${new Date(t0 + 10_000_000).toISOString()}#sensor1`]);
  await sleep(1500);
  const logged = advice();
  expect(
    logged.map((r) => [r.level, r.fields?.['rule']]),
    records.map((r) => r.message).join('\n'),
  ).toEqual([['warn', 'timestamp-leading-key']]);
  expect(logged[0]!.message).toMatch(
    new RegExp(`^table ${name}: Keys start with a timestamp.* Suggestion: .*schema advisor rule timestamp-leading-key`),
  );
  expect(logged[0]!.fields).toEqual({ event: 'schema-advice', table: name, rule: 'timestamp-leading-key', message: expect.any(String) });
  expect(records.filter((r) => r.level === 'error')).toEqual([]);
  await bigtable.close();
}, 30_000);
