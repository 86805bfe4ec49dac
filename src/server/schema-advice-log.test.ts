import { describe, expect, it, vi } from 'vitest';
import { INSTANCE, createTable, family, set, type Fixture } from '../db/testing/db-fixture.js';
import type { AdviceJson, AdvisorInput, Finding } from '../insight/advisor/types.js';
import { openRecordedDb } from '../insight/testing/recorded-db.js';
import type { TableName } from '../model/names.js';
import { memoryLogger } from '../testing/memory-logger.js';
import { MAX_DEFER_PERIODS, SchemaAdviceLog } from './schema-advice-log.js';

const write = (f: Fixture, name: TableName, key: string) => f.db.mutateRow(name, key, [set('cf', 'q', 1000, 'v')]);

/**
 * Rules made for the test (the real ones are advise.ts's, tested on their own): every table read in full that has
 * rows gets a danger `hot-row` and a warning `long-key`; the inputs seen are kept.
 */
function testRules(seen: AdvisorInput[]): (input: AdvisorInput) => AdviceJson {
  return (input) => {
    seen.push(input);
    const findings: Finding[] = input.tables
      .filter((t) => t.keys.length > 0)
      .flatMap((t) => [
        {
          rule: 'hot-row',
          severity: 'danger',
          table: t.name.table,
          message: `row ${t.keys[0]} takes it all.`,
          evidence: {},
          suggestion: 'buffer it',
        },
        { rule: 'long-key', severity: 'warning', table: t.name.table, message: 'long keys.', evidence: {}, suggestion: 'shorter' },
      ]);
    return { instance: '', generatedAt: '', window: { from: '', to: '' }, tables: [], findings };
  };
}

describe('the schema advisor pass of the server', () => {
  it("logs a danger finding as a warning once per table and rule per hour, as the tablet manager's hotspot line", async () => {
    const { f, insight } = await openRecordedDb();
    const name = await createTable(f, [family('cf')]);
    const logger = memoryLogger();
    const log = new SchemaAdviceLog({ db: f.db, history: insight, logger, advise: testRules([]) });
    await log.runOnce();
    expect(logger.records).toEqual([]); // no rows: no finding
    await write(f, name, 'row1');
    await log.runOnce();
    const table = `projects/${INSTANCE.project}/instances/${INSTANCE.instance}/tables/${name.table}`;
    expect(logger.records).toEqual([
      {
        level: 'warn',
        message: `table ${table}: row row1 takes it all. Suggestion: buffer it (schema advisor rule hot-row; \`tabletop advise --table ${name.table}\` shows the evidence)`,
        fields: { event: 'schema-advice', table, rule: 'hot-row', message: 'row row1 takes it all.' },
      },
    ]);
    // Still there a minute later, with more traffic: not logged again.
    f.clock.advanceMillis(60_000);
    await write(f, name, 'row2');
    await log.runOnce();
    expect(logger.records).toHaveLength(1);
    // An hour after it was logged, it is logged again.
    f.clock.advanceMillis(60 * 60_000);
    await write(f, name, 'row3');
    await log.runOnce();
    expect(logger.records).toHaveLength(2);
    await insight.close();
    await f.db.close();
  });

  it('reads in full only the tables that changed or had traffic since the last pass; skips an idle instance', async () => {
    const { f, insight } = await openRecordedDb();
    const a = await createTable(f, [family('cf')]);
    const b = await createTable(f, [family('cf')]);
    await write(f, a, 'a1');
    await write(f, b, 'b1');
    // (Traffic counts by the recording's time bucket, 10 s here: the pass comes after the writes' bucket.)
    f.clock.advanceMillis(10_000);
    const seen: AdvisorInput[] = [];
    const log = new SchemaAdviceLog({ db: f.db, history: insight, logger: memoryLogger(), advise: testRules(seen) });
    await log.runOnce();
    const full = (input: AdvisorInput) => input.tables.filter((t) => t.keys.length > 0).map((t) => t.name.table);
    expect(full(seen[0]!)).toEqual([a.table, b.table]);
    f.clock.advanceMillis(60_000);
    await write(f, a, 'a2');
    f.clock.advanceMillis(10_000);
    await log.runOnce();
    expect(full(seen[1]!)).toEqual([a.table]);
    expect(seen[1]!.tables.map((t) => t.name.table)).toEqual([a.table, b.table]);
    f.clock.advanceMillis(60_000);
    await log.runOnce();
    expect(seen).toHaveLength(2);
    await insight.close();
    await f.db.close();
  });

  it('logs a failing pass as an error and keeps going', async () => {
    const { f, insight } = await openRecordedDb();
    await createTable(f, [family('cf')]);
    const logger = memoryLogger();
    const log = new SchemaAdviceLog({
      db: f.db,
      history: insight,
      logger,
      advise: () => {
        throw new Error('rules broke');
      },
    });
    await expect(log.runOnce()).resolves.toBeUndefined();
    expect(logger.records).toEqual([
      { level: 'error', message: expect.stringContaining('rules broke'), fields: { event: 'schema-advice-failed' } },
    ]);
    await insight.close();
    await f.db.close();
  });

  it('waits for an idle moment to run a due pass, at most MAX_DEFER_PERIODS periods', async () => {
    const { f, insight } = await openRecordedDb();
    const name = await createTable(f, [family('cf')]);
    await write(f, name, 'row1');
    const seen: AdvisorInput[] = [];
    let busy = true;
    const checks: boolean[] = [];
    const log = new SchemaAdviceLog({
      db: f.db,
      history: insight,
      logger: memoryLogger(),
      advise: testRules(seen),
      busy: () => (checks.push(busy), busy),
    });
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    try {
      const period = 60_000;
      log.start(period);
      // Busy: the first pass (due one period after start) waits, checked every 5 s, ...
      await vi.advanceTimersByTimeAsync(5 * period);
      expect(seen).toHaveLength(0);
      expect(checks).toHaveLength(60);
      // ... until the server is idle.
      busy = false;
      await vi.advanceTimersByTimeAsync(5000);
      await log.stop();
      expect(seen).toHaveLength(1);
      // Busy all the time: a pass every MAX_DEFER_PERIODS periods, no more often.
      busy = true;
      await write(f, name, 'row2'); // (a pass reads only the tables that changed)
      log.start(period);
      await vi.advanceTimersByTimeAsync((MAX_DEFER_PERIODS + 1) * period - 5000);
      expect(seen).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(5000);
      await log.stop();
      expect(seen).toHaveLength(2);
    } finally {
      vi.useRealTimers();
      await log.stop();
      await insight.close();
      await f.db.close();
    }
  });
});
