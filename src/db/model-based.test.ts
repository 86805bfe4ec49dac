import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Mutation } from '../model/mutation.js';
import type { TableName } from '../model/names.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { type Fixture, createTable, drain, family, openDb, showRow, text } from './testing/db-fixture.js';

/**
 * Model-based test of the write and read paths: random mutations, batches
 * and range drops go to the database and to a trivially simple reference
 * (nested maps); every read must agree. The table has tablets, families
 * created in non-alphabetical order and a max-versions GC rule, so
 * row assembly, read-time GC and tablet walking are all exercised.
 */

const KEYS = ['k0', 'k1', 'k2', 'k3', 'k30', 'k4', 'k5', 'k6', 'k7', 'k9'];
const SPLITS = ['k3', 'k6'];
const FAMILIES = ['zz', 'aa'] as const; // creation order: zz first
const MAX_VERSIONS = { zz: Infinity, aa: 2 } as const;
const QUALIFIERS = ['', 'x', 'y\xff'];

type Family = (typeof FAMILIES)[number];
/** key -> "family\0qualifier" -> timestamp -> value */
type Model = Map<string, Map<string, Map<number, string>>>;

const arbTs = fc.constantFrom(1000, 2000, 3000, 4000);
const arbFamily = fc.constantFrom<Family>(...FAMILIES);
const arbQualifier = fc.constantFrom(...QUALIFIERS);
const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        family: arbFamily,
        qualifier: arbQualifier,
        timestamp: fc.oneof(arbTs, fc.constant(-1)),
        value: fc.string({ maxLength: 3 }),
      })
      .map((m): Mutation => ({
        kind: 'setCell',
        family: m.family,
        qualifier: m.qualifier,
        timestamp: m.timestamp,
        value: new Uint8Array(Buffer.from(m.value, 'latin1')),
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        family: arbFamily,
        qualifier: arbQualifier,
        start: fc.constantFrom(0, 1000, 2000, 3000),
        span: fc.constantFrom(1000, 2000, undefined),
      })
      .map((m): Mutation => ({
        kind: 'deleteFromColumn',
        family: m.family,
        qualifier: m.qualifier,
        start: m.start,
        end: m.span === undefined ? undefined : m.start + m.span,
      })),
  },
  { weight: 1, arbitrary: arbFamily.map((f): Mutation => ({ kind: 'deleteFromFamily', family: f })) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'deleteFromRow' }) },
);
const arbEntry = fc.record({ key: fc.constantFrom(...KEYS), mutations: fc.array(arbMutation, { minLength: 1, maxLength: 4 }) });

type Op =
  | { kind: 'mutateRow'; key: string; mutations: Mutation[] }
  | { kind: 'mutateRows'; entries: { key: string; mutations: Mutation[] }[] }
  | { kind: 'drop'; prefix: string | undefined }
  | { kind: 'tick'; millis: number }
  | { kind: 'read'; start: string; end: string | undefined; reversed: boolean; limit: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: arbEntry.map((e): Op => ({ kind: 'mutateRow', ...e })) },
  { weight: 3, arbitrary: fc.array(arbEntry, { minLength: 1, maxLength: 5 }).map((entries): Op => ({ kind: 'mutateRows', entries })) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, 'k', 'k3', 'k0', 'k9', 'x').map((prefix): Op => ({ kind: 'drop', prefix })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2500 }).map((millis): Op => ({ kind: 'tick', millis })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        start: fc.constantFrom('', 'k1', 'k3', 'k35', 'k6'),
        end: fc.constantFrom(undefined, 'k3', 'k30', 'k6', 'k8'),
        reversed: fc.boolean(),
        limit: fc.nat(4),
      })
      .map((r): Op => ({ kind: 'read', ...r })),
  },
);

function applyToModel(model: Model, key: string, mutations: readonly Mutation[], now: number): void {
  let row = model.get(key) ?? new Map<string, Map<number, string>>();
  for (const m of mutations) {
    switch (m.kind) {
      case 'setCell': {
        const col = `${m.family}\0${m.qualifier}`;
        const versions = row.get(col) ?? new Map<number, string>();
        versions.set(m.timestamp === -1 ? now : m.timestamp, text(m.value));
        row.set(col, versions);
        break;
      }
      case 'deleteFromColumn': {
        const versions = row.get(`${m.family}\0${m.qualifier}`);
        for (const ts of [...(versions?.keys() ?? [])]) if (ts >= m.start && (m.end === undefined || ts < m.end)) versions!.delete(ts);
        break;
      }
      case 'deleteFromFamily':
        for (const col of [...row.keys()]) if (col.startsWith(`${m.family}\0`)) row.delete(col);
        break;
      case 'deleteFromRow':
        row = new Map();
        break;
      default:
        throw new Error(`not generated: ${m.kind}`);
    }
  }
  for (const [col, versions] of row) if (versions.size === 0) row.delete(col);
  if (row.size === 0) model.delete(key);
  else model.set(key, row);
}

/** What a read of the model returns, in the fixture's showRow format. */
function readModel(model: Model, op: { start: string; end: string | undefined; reversed: boolean; limit: number }): string[] {
  const keys = [...model.keys()].filter((k) => k >= op.start && (op.end === undefined || k < op.end)).sort();
  if (op.reversed) keys.reverse();
  const out: string[] = [];
  for (const key of keys) {
    const cells: string[] = [];
    for (const fam of FAMILIES) {
      const cols = [...model.get(key)!.entries()].filter(([col]) => col.startsWith(`${fam}\0`)).sort(([a], [b]) => (a < b ? -1 : 1));
      for (const [col, versions] of cols) {
        const qualifier = col.slice(fam.length + 1);
        const tss = [...versions.keys()].sort((a, b) => b - a).slice(0, MAX_VERSIONS[fam]);
        for (const ts of tss) cells.push(`${fam}:${qualifier}@${ts / 1000}=${versions.get(ts)}`);
      }
    }
    if (cells.length > 0) out.push(`${key}: ${cells.join(' ')}`);
    if (op.limit > 0 && out.length === op.limit) break;
  }
  return out;
}

async function readDb(
  f: Fixture,
  name: TableName,
  op: { start: string; end: string | undefined; reversed: boolean; limit: number },
): Promise<string[]> {
  const range = {
    start: { kind: 'closed' as const, key: op.start },
    end: op.end === undefined ? { kind: 'unbounded' as const } : { kind: 'open' as const, key: op.end },
  };
  const empty = op.end !== undefined && op.end <= op.start;
  const rows = empty ? { keys: [], ranges: [] } : { keys: [], ranges: [range] };
  if (empty) return [];
  return (await drain(f.db.readRows(name, { rows, filter: undefined, limit: op.limit, reversed: op.reversed }))).map(showRow);
}

const FULL = { start: '', end: undefined, reversed: false, limit: 0 };

for (const engine of ['memory', 'async'] as const) {
  describe(`model-based write/read (${engine} engine)`, () => {
    it('agrees with a reference model over random operation sequences', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 25 }), async (ops) => {
          const f = await openDb(engine === 'async' ? { engine: createAsyncEngine() } : {});
          const name = await createTable(f, [family('zz'), family('aa', { kind: 'maxVersions', versions: 2 })], { splits: SPLITS });
          const model: Model = new Map();
          for (const op of ops) {
            const now = f.clock.nowMicros() - (f.clock.nowMicros() % 1000);
            switch (op.kind) {
              case 'mutateRow':
                await f.db.mutateRow(name, op.key, op.mutations);
                applyToModel(model, op.key, op.mutations, now);
                break;
              case 'mutateRows': {
                const results = await f.db.mutateRows(name, op.entries);
                expect(results.every((r) => r === undefined)).toBe(true);
                for (const e of op.entries) applyToModel(model, e.key, e.mutations, now);
                break;
              }
              case 'drop':
                await f.db.dropRowRange(name, op.prefix === undefined ? { kind: 'all' } : { kind: 'prefix', prefix: op.prefix });
                for (const key of [...model.keys()]) if (op.prefix === undefined || key.startsWith(op.prefix)) model.delete(key);
                break;
              case 'tick':
                f.clock.advanceMillis(op.millis);
                break;
              case 'read':
                expect(await readDb(f, name, op)).toEqual(readModel(model, op));
                break;
            }
            expect(await readDb(f, name, FULL)).toEqual(readModel(model, FULL));
          }
          expect(await readDb(f, name, { ...FULL, reversed: true })).toEqual(readModel(model, { ...FULL, reversed: true }));
          await f.db.close();
        }),
        { numRuns: engine === 'async' ? 40 : 150 },
      );
    });
  });
}
