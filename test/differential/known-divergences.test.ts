import { describe, expect, it } from 'vitest';
import type { Table } from '@google-cloud/bigtable';
import { EMULATOR_DIVERGENCES } from '../harness/divergences.js';
import type { DivergenceId } from '../harness/divergences.js';
import { outcome, singleMutationOutcome, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { rawReadRows, rawUnary } from '../harness/raw.js';
import { useTarget } from '../harness/suite.js';
import type { TargetContext } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

/**
 * Each entry of EMULATOR_DIVERGENCES, shown on its own: what tabletop (and
 * Cloud Bigtable) answers and the emulator's known wrong answer, both
 * asserted. If Google fixes the emulator, the emulator assertion fails and
 * the entry (with its expectedOn uses elsewhere) should go.
 */
interface Demonstration {
  /** Runs the scenario and returns what it observed. */
  observe(ctx: TargetContext): Promise<unknown>;
  /** The observation on tabletop. */
  readonly correct: unknown;
  /** The observation on Google's emulator. */
  readonly emulator: unknown;
}

const at = (value: string, ms: number) => ({ value, timestamp: new Date(ms) });

async function table(ctx: TargetContext, families: string[] = ['cf']): Promise<Table> {
  const t = ctx.instance.table(uniqueTableId('divergence'));
  await t.create();
  for (const f of families) await t.createFamily(f);
  return t;
}

function adminName(t: Table): string {
  return `projects/${PROJECT}/instances/${INSTANCE}/tables/${t.id}`;
}

async function versionsPerFamily(t: Table): Promise<Record<string, number>> {
  const [rows] = await t.getRows();
  const data = (rows[0]?.data ?? {}) as Record<string, { q: unknown[] }>;
  return Object.fromEntries(Object.entries(data).map(([f, c]) => [f, c.q.length]));
}

const DEMONSTRATIONS: Record<DivergenceId, Demonstration> = {
  'unknown-family-code': {
    observe: async (ctx) => singleMutationOutcome((await table(ctx)).insert([{ key: 'r', data: { nope: { q: at('v', 1) } } }])),
    correct: status.NOT_FOUND,
    emulator: status.INTERNAL,
  },
  'bad-timestamp-code': {
    observe: async (ctx) =>
      singleMutationOutcome((await table(ctx)).insert([{ key: 'r', data: { cf: { q: { value: 'v', timestamp: 1234 } } } }])),
    correct: status.INVALID_ARGUMENT,
    emulator: status.INTERNAL,
  },
  'lazy-filter-validation': {
    observe: async (ctx) => outcome((await table(ctx)).getRows({ filter: [{ row: '(' }] })),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'mutate-rows-entry-code': {
    observe: async (ctx) => singleMutationOutcome((await table(ctx)).insert([{ key: '', data: { cf: { q: at('v', 1) } } }])),
    correct: status.INVALID_ARGUMENT,
    emulator: status.INTERNAL,
  },
  'row-key-limit': {
    observe: async (ctx) => singleMutationOutcome((await table(ctx)).insert([{ key: 'k'.repeat(4097), data: { cf: { q: at('v', 1) } } }])),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'qualifier-limit': {
    observe: async (ctx) =>
      singleMutationOutcome((await table(ctx)).insert([{ key: 'r', data: { cf: { ['q'.repeat(16 * 1024 + 1)]: at('v', 1) } } }])),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'mutation-count-limit': {
    observe: async (ctx) =>
      outcome(
        (await table(ctx)).mutate(
          [{ rowKey: Buffer.from('r'), mutations: Array.from({ length: 100_001 }, () => ({ deleteFromRow: {} })) }],
          { rawMutation: true },
        ),
      ),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'table-id-validation': {
    observe: (ctx) => outcome(ctx.instance.table('not a valid id').create()),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'family-name-validation': {
    observe: async (ctx) => outcome((await table(ctx)).createFamily('not:valid')),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'min-max-age': {
    observe: async (ctx) => outcome((await table(ctx)).createFamily('tiny', { rule: { age: { seconds: 0, nanos: 999_999 } } })),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'gc-rule-absent': {
    observe: async (ctx) => {
      const t = await table(ctx, []);
      await ctx.client.admin
        .getTableAdminClient()
        .modifyColumnFamilies({ name: adminName(t), modifications: [{ id: 'never', create: { gcRule: {} } }] });
      const [families] = await t.getFamilies();
      return families.map((f) => (f.metadata as { gcRule?: unknown }).gcRule ?? null);
    },
    correct: [null],
    emulator: [{}],
  },
  'unknown-family-admin-code': {
    observe: async (ctx) => outcome((await table(ctx)).family('nope').delete()),
    correct: status.NOT_FOUND,
    emulator: status.UNKNOWN,
  },
  'gc-at-read-time': {
    observe: async (ctx) => {
      const t = await table(ctx, []);
      await t.createFamily('cf', { rule: { versions: 1 } });
      for (const ms of [1, 2, 3]) await t.insert([{ key: 'r', data: { cf: { q: at(`v${ms}`, ms) } } }]);
      return versionsPerFamily(t);
    },
    correct: { cf: 1 },
    emulator: { cf: 3 },
  },
  'intersection-gc': {
    observe: async (ctx) => {
      const t = await table(ctx, []);
      await t.createFamily('probe', { rule: { versions: 1 } });
      await t.createFamily('both', { rule: { versions: 1, age: { seconds: 60 } } });
      const old = Date.now() - 3_600_000;
      for (const ms of [old - 2, old - 1, old])
        await t.insert([{ key: 'r', data: { probe: { q: at('p', ms) }, both: { q: at('b', ms) } } }]);
      // Wait for the emulator's background GC to collect the probe family (tabletop: at once).
      const deadline = Date.now() + 10_000;
      while ((await versionsPerFamily(t))['probe'] !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return versionsPerFamily(t);
    },
    correct: { probe: 1, both: 1 },
    emulator: { probe: 1, both: 3 },
  },
  'create-table-family-order': {
    // Out of five tables with six families each, is any row's family order not the CreateTable order?
    observe: async (ctx) => {
      const families = ['f6', 'f5', 'f4', 'f3', 'f2', 'f1'];
      let outOfOrder = 0;
      for (let i = 0; i < 5; i++) {
        const t = ctx.instance.table(uniqueTableId('family-order'));
        await t.create({ families });
        await t.insert([{ key: 'r', data: Object.fromEntries(families.map((f) => [f, { q: at('v', 1) }])) }]);
        const [rows] = await t.getRows();
        if (JSON.stringify(Object.keys((rows[0]?.data ?? {}) as object)) !== JSON.stringify(families)) outOfOrder++;
      }
      return outOfOrder > 0;
    },
    correct: false,
    emulator: true,
  },
  'cells-per-row-family-order': {
    // Families z then a; a cells-per-row limit of 1 must always keep the z cell.
    observe: async (ctx) => {
      const t = await table(ctx, ['z', 'a']);
      await t.insert([{ key: 'r', data: { z: { q: at('zz', 1) }, a: { q: at('aa', 1) } } }]);
      const seen = new Set<string>();
      for (let i = 0; i < 100; i++) {
        const [rows] = await t.getRows({ filter: [{ row: { cellLimit: 1 } }] });
        seen.add(Object.keys((rows[0]?.data ?? {}) as object).join());
      }
      return [...seen].sort();
    },
    correct: ['z'],
    emulator: ['a', 'z'],
  },
  'sink-filter': {
    observe: async (ctx) => {
      const t = await table(ctx);
      await t.insert([{ key: 'r', data: { cf: { a: at('x', 1), b: at('y', 1) } } }]);
      const [rows] = await t.getRows({ filter: [{ interleave: [[{ all: true }], [{ label: 's' }, { sink: true }]] }, { column: 'a' }] });
      return rows
        .flatMap((r) =>
          Object.entries((r.data as { cf: Record<string, { labels: string[] }[]> }).cf).flatMap(([q, cells]) =>
            cells.map((c) => `${q}[${c.labels.join()}]`),
          ),
        )
        .sort();
    },
    correct: ['a[]', 'a[s]', 'b[s]'],
    emulator: ['a[]', 'a[s]'],
  },
  'sample-row-keys': {
    // Does SampleRowKeys return keys of the table's rows (rather than tablet boundaries)?
    observe: async (ctx) => {
      const t = await table(ctx);
      const keys = Array.from({ length: 3000 }, (_, i) => `row-${String(i).padStart(5, '0')}`);
      await t.insert(keys.map((key) => ({ key, data: { cf: { q: at('v', 1) } } })));
      const [samples] = await t.sampleRowKeys();
      const nonEmpty = samples.map((s) => Buffer.from(s.key as Buffer).toString()).filter((k) => k !== '');
      return nonEmpty.length > 0 && nonEmpty.every((k) => keys.includes(k));
    },
    correct: false,
    emulator: true,
  },
  'increment-non-int64-code': {
    observe: async (ctx) => {
      const t = await table(ctx);
      await t.insert([{ key: 'r', data: { cf: { q: at('text', 1) } } }]);
      return outcome(t.row('r').increment('cf:q', 1));
    },
    correct: status.FAILED_PRECONDITION,
    emulator: status.UNKNOWN,
  },
  'aggregate-min-max': {
    observe: async (ctx) => {
      const t = await table(ctx, []);
      const type = (agg: string) => ({ aggregateType: { inputType: { int64Type: { encoding: { bigEndianBytes: {} } } }, [agg]: {} } });
      await ctx.client.admin.getTableAdminClient().modifyColumnFamilies({
        name: adminName(t),
        modifications: [
          { id: 'lo', create: { valueType: type('min') } },
          { id: 'hi', create: { valueType: type('max') } },
        ],
      });
      for (const v of [3, -1, 7, 2]) {
        await t.mutate(
          [
            {
              rowKey: Buffer.from('r'),
              mutations: ['lo', 'hi'].map((familyName) => ({
                addToCell: {
                  familyName,
                  columnQualifier: { rawValue: Buffer.from('q') },
                  timestamp: { rawTimestampMicros: 0 },
                  input: { intValue: v },
                },
              })),
            },
          ],
          { rawMutation: true },
        );
      }
      const [rows] = await t.getRows();
      const data = (rows[0]?.data ?? {}) as Record<string, { q: { value: unknown }[] }>;
      return { lo: data['lo']?.q[0]?.value, hi: data['hi']?.q[0]?.value };
    },
    correct: { lo: -1, hi: 7 },
    emulator: { lo: 2, hi: 2 },
  },
  'check-and-mutate-without-mutations': {
    observe: async (ctx) =>
      outcome(
        rawUnary(ctx.client, 'BigtableClient', 'checkAndMutateRow', { tableName: (await table(ctx)).name, rowKey: Buffer.from('r') }),
      ),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'read-modify-write-without-rules': {
    observe: async (ctx) =>
      outcome(
        rawUnary(ctx.client, 'BigtableClient', 'readModifyWriteRow', {
          tableName: (await table(ctx)).name,
          rowKey: Buffer.from('r'),
          rules: [],
        }),
      ),
    correct: status.INVALID_ARGUMENT,
    emulator: 'ok',
  },
  'invalid-rmw-rule-code': {
    observe: async (ctx) => outcome((await table(ctx)).row('r').increment('cf:n', 0)),
    correct: status.INVALID_ARGUMENT,
    emulator: status.UNKNOWN,
  },
  'invalid-mutation-code': {
    // (The emulator only notices the inverted range when the column has cells.)
    observe: async (ctx) => {
      const t = await table(ctx);
      await t.insert([{ key: 'r', data: { cf: { a: at('v', 1) } } }]);
      return outcome(
        rawUnary(ctx.client, 'BigtableClient', 'mutateRow', {
          tableName: t.name,
          rowKey: Buffer.from('r'),
          mutations: [
            {
              deleteFromColumn: {
                familyName: 'cf',
                columnQualifier: Buffer.from('a'),
                timeRange: { startTimestampMicros: 5000, endTimestampMicros: 2000 },
              },
            },
          ],
        }),
      );
    },
    correct: status.INVALID_ARGUMENT,
    emulator: status.UNKNOWN,
  },
  'filter-limits': {
    observe: async (ctx) => {
      const t = await table(ctx);
      let deep: Record<string, unknown> = { passAllFilter: true };
      for (let i = 0; i < 25; i++) deep = { interleave: { filters: [deep, { blockAllFilter: true }] } };
      return [
        await outcome(
          rawReadRows(ctx.client, { tableName: t.name, filter: { rowKeyRegexFilter: Buffer.from('r|' + 'x'.repeat(30_000)) } }),
        ),
        await outcome(rawReadRows(ctx.client, { tableName: t.name, filter: deep })),
      ];
    },
    correct: [status.INVALID_ARGUMENT, status.INVALID_ARGUMENT],
    emulator: ['ok', 'ok'],
  },
  'row-mutation-atomicity': {
    observe: async (ctx) => {
      const t = await table(ctx);
      const set = (ts: number) => ({
        setCell: { familyName: 'cf', columnQualifier: Buffer.from('a'), timestampMicros: ts, value: Buffer.from('x') },
      });
      await outcome(
        rawUnary(ctx.client, 'BigtableClient', 'mutateRow', {
          tableName: t.name,
          rowKey: Buffer.from('r'),
          mutations: [set(1000), set(-5000)],
        }),
      );
      const [rows] = await t.getRows();
      return rows.length;
    },
    correct: 0,
    emulator: 1,
  },
  'label-validation': {
    observe: async (ctx) => {
      const name = (await table(ctx)).name;
      return [
        await outcome(rawReadRows(ctx.client, { tableName: name, filter: { applyLabelTransformer: 'Mixed-Case' } })),
        await outcome(rawReadRows(ctx.client, { tableName: name, filter: { applyLabelTransformer: 'sixteen-chars-xx' } })),
        await outcome(
          rawReadRows(ctx.client, {
            tableName: name,
            filter: { chain: { filters: [{ applyLabelTransformer: 'a' }, { applyLabelTransformer: 'b' }] } },
          }),
        ),
      ];
    },
    correct: [status.INVALID_ARGUMENT, status.INVALID_ARGUMENT, status.INVALID_ARGUMENT],
    emulator: ['ok', 'ok', 'ok'],
  },
  'instance-admin': {
    observe: (ctx) => outcome(ctx.client.getInstances()),
    correct: 'ok',
    emulator: status.UNIMPLEMENTED,
  },
  'unknown-instance': {
    observe: (ctx) => outcome(ctx.client.instance(`never-created-${process.pid.toString(36)}`).getTables()),
    correct: status.NOT_FOUND,
    emulator: 'ok',
  },
};

describe('the list of known emulator divergences', () => {
  it('has a demonstration for every entry, and no demonstration without an entry', () => {
    expect(Object.keys(DEMONSTRATIONS).sort()).toEqual(Object.keys(EMULATOR_DIVERGENCES).sort());
  });
});

describe.each(selectedTargets())('known emulator divergences, observed on %s', (kind) => {
  const ctx = useTarget(kind);
  it.each(Object.keys(DEMONSTRATIONS) as DivergenceId[])(
    '%s',
    async (id) => {
      const demo = DEMONSTRATIONS[id];
      const observed = await demo.observe(ctx);
      expect(observed).toEqual(kind === 'emulator' ? demo.emulator : demo.correct);
    },
    60_000,
  );
});
