import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import type { Table } from '@google-cloud/bigtable';
import { assembleCells, rawReadRows } from '../harness/raw.js';
import type { RawCell } from '../harness/raw.js';
import { useTarget } from '../harness/suite.js';
import type { TargetContext } from '../harness/suite.js';
import { applyOp } from './apply.js';
import { filterArb, KEYS, opArb } from './ops.js';
import { differentialPair, differentialTable, fcParams, SEED, SKIP_REASON } from './pair.js';
import { seededRandom } from '../../src/testing/random.js';

const pair = differentialPair();

// The client turns its filter syntax into a RowFilter proto with Filter.parse.
// Its package entry re-exports `Filter` as undefined (7.2), so load the module itself.
const { Filter } = createRequire(import.meta.url)('@google-cloud/bigtable/build/src/filter.js') as {
  Filter: { parse(filters: unknown): Record<string, unknown> | null };
};

/** Cells as comparable text: hex key, family, hex qualifier, timestamp (clock ones as <now>), hex value, labels. */
function cellsText(cells: readonly RawCell[]): string[] {
  return cells.map((c) => {
    const ts = Number(c.timestamp) > 1e12 ? '<now>' : c.timestamp;
    return `${c.key.toString('hex')} ${c.family}:${c.qualifier.toString('hex')} @${ts} ${c.value.toString('hex')}${c.labels.length ? ` [${c.labels.join()}]` : ''}`;
  });
}

/** Sorts copies of one cell (same key, column and timestamp), whose mutual order is unspecified. */
function canonical(lines: string[]): string[] {
  const out: string[] = [];
  let group: string[] = [];
  const head = (l: string) => l.split(' ').slice(0, 3).join(' ');
  for (const line of lines) {
    if (group.length > 0 && head(group[0] ?? '') !== head(line)) {
      out.push(...group.sort());
      group = [];
    }
    group.push(line);
  }
  out.push(...group.sort());
  return out;
}

async function read(ctx: TargetContext, table: Table, request: Record<string, unknown>): Promise<string> {
  try {
    const cells = assembleCells(
      await rawReadRows(ctx.client, { tableName: table.name, ...request }, { reverseScans: request['reversed'] === true }),
    );
    return canonical(cellsText(cells)).join('\n');
  } catch (e) {
    return `error ${(e as { code?: number }).code ?? (e as Error).message}`;
  }
}

describe.skipIf(pair === undefined)(`hand-written and random read scenarios, ${pair?.join(' vs ') ?? SKIP_REASON}`, () => {
  const [kindA, kindB] = pair ?? ['tabletop', 'emulator'];
  const a = useTarget(kindA);
  const b = useTarget(kindB);

  describe('binary keys, qualifiers and values', () => {
    let ta: Table;
    let tb: Table;
    const rand = seededRandom(SEED);
    const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
    const keys = Array.from({ length: 40 }, (_, i) => (i % 5 === 0 ? Buffer.from([0xff, 0x0a, i]) : bytes(1 + Math.floor(rand() * 4))));
    const entries = keys.map((rowKey) => ({
      rowKey,
      mutations: Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
        setCell: {
          familyName: rand() < 0.5 ? 'f1' : 'f2',
          columnQualifier: bytes(Math.floor(rand() * 3)),
          timestampMicros: 1000 * Math.floor(rand() * 5),
          value: bytes(Math.floor(rand() * 6)),
        },
      })),
    }));

    beforeAll(async () => {
      [ta, tb] = await Promise.all([differentialTable(a, 'binary'), differentialTable(b, 'binary')]);
      await Promise.all([ta.mutate(entries, { rawMutation: true }), tb.mutate(entries, { rawMutation: true })]);
    });

    const requests: [string, Record<string, unknown>][] = [
      ['full scan', {}],
      ['reversed scan', { reversed: true }],
      ['reversed with limit', { reversed: true, rowsLimit: 7 }],
      ['binary range', { rows: { rowRanges: [{ startKeyClosed: Buffer.from([0x40]), endKeyOpen: Buffer.from([0xc0, 0x00]) }] } }],
      [
        'binary range, reversed',
        { reversed: true, rows: { rowRanges: [{ startKeyOpen: Buffer.from([0x10]), endKeyClosed: Buffer.from([0xff, 0x0a, 20]) }] } },
      ],
      ['row regex with \\C and \\n', { filter: { rowKeyRegexFilter: Buffer.from('\\xff\\n\\C') } }],
      ['row regex with .', { filter: { rowKeyRegexFilter: Buffer.from('\\xff..') } }],
      ['qualifier regex over bytes', { filter: { columnQualifierRegexFilter: Buffer.from('[\\x00-\\x7f]\\C*') } }],
      ['value regex over bytes', { filter: { valueRegexFilter: Buffer.from('\\C*[\\x80-\\xff]') } }],
      ['empty qualifiers only', { filter: { columnQualifierRegexFilter: Buffer.alloc(0) } }],
      [
        'qualifier range with binary bounds',
        {
          filter: {
            columnRangeFilter: { familyName: 'f1', startQualifierClosed: Buffer.from([0x20]), endQualifierOpen: Buffer.from([0xa0]) },
          },
        },
      ],
      [
        'value range with binary bounds',
        { filter: { valueRangeFilter: { startValueOpen: Buffer.from([0x30]), endValueClosed: Buffer.from([0xe0, 0xff]) } } },
      ],
      [
        'latest version, stripped, reversed',
        { reversed: true, filter: { chain: { filters: [{ cellsPerColumnLimitFilter: 1 }, { stripValueTransformer: true }] } } },
      ],
      ['time range', { filter: { timestampRangeFilter: { startTimestampMicros: 1000, endTimestampMicros: 3000 } } }],
    ];

    it.each(requests)('%s', async (_name, request) => {
      const [ra, rb] = await Promise.all([read(a, ta, request), read(b, tb, request)]);
      expect(ra).not.toMatch(/^error/);
      expect(ra).toBe(rb);
    });
  });

  describe('random reads over random data, forward and reversed', () => {
    let ta: Table;
    let tb: Table;

    beforeAll(async () => {
      [ta, tb] = await Promise.all([differentialTable(a, 'random-reads'), differentialTable(b, 'random-reads')]);
      const writes = fc.sample(
        opArb.filter((op) => op.op !== 'read' && op.op !== 'dropPrefix' && op.op !== 'deleteRow'),
        { seed: SEED, numRuns: 150 },
      );
      for (const op of writes) {
        const [ra, rb] = await Promise.all([applyOp(a.client, ta, op), applyOp(b.client, tb, op)]);
        expect(`${JSON.stringify(op)} -> ${ra}`).toBe(`${JSON.stringify(op)} -> ${rb}`);
      }
    });

    const key = fc.constantFrom(...KEYS).map((k) => Buffer.from(k));
    const rowRange = fc
      .record({
        start: fc.option(fc.record({ key, closed: fc.boolean() }), { nil: undefined }),
        end: fc.option(fc.record({ key, closed: fc.boolean() }), { nil: undefined }),
      })
      .filter(
        (r) =>
          !r.start ||
          !r.end ||
          Buffer.compare(r.start.key, r.end.key) < 0 ||
          (Buffer.compare(r.start.key, r.end.key) === 0 && r.start.closed && r.end.closed),
      )
      .map((r) => ({
        ...(r.start ? { [r.start.closed ? 'startKeyClosed' : 'startKeyOpen']: r.start.key } : {}),
        ...(r.end ? { [r.end.closed ? 'endKeyClosed' : 'endKeyOpen']: r.end.key } : {}),
      }));
    const request = fc.record({
      rowKeys: fc.array(key, { maxLength: 3 }),
      rowRanges: fc.array(rowRange, { maxLength: 2 }),
      filter: fc.option(filterArb, { nil: undefined }),
      rowsLimit: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })),
      reversed: fc.boolean(),
    });

    it('give the same cells', async () => {
      let nonEmpty = 0;
      let reversed = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const raw: Record<string, unknown> = {
            ...(r.rowKeys.length + r.rowRanges.length > 0 ? { rows: { rowKeys: r.rowKeys, rowRanges: r.rowRanges } } : {}),
            ...(r.filter ? { filter: Filter.parse(r.filter) } : {}),
            ...(r.rowsLimit ? { rowsLimit: r.rowsLimit } : {}),
            ...(r.reversed ? { reversed: true } : {}),
          };
          const [ra, rb] = await Promise.all([read(a, ta, raw), read(b, tb, raw)]);
          expect(ra).not.toMatch(/^error/);
          expect(ra).toBe(rb);
          if (ra !== '') nonEmpty++;
          if (r.reversed) reversed++;
        }),
        fcParams(300),
      );
      expect(nonEmpty).toBeGreaterThan(100);
      expect(reversed).toBeGreaterThan(100);
    }, 300_000);
  });
});
