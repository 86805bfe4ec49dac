import { beforeAll, describe, expect, it } from 'vitest';
import type { GetRowsOptions, Table } from '@google-cloud/bigtable';
import { allowedOn, expectedOn } from '../harness/divergences.js';
import { expectCode, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { assembleCells, rawReadRows } from '../harness/raw.js';
import { keysOf, readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

type Filter = GetRowsOptions['filter'];

/**
 * Families are created as fam2 then fam1, so creation order and name order
 * differ: rows list fam2 first. They are created one by one
 * (ModifyColumnFamilies): the emulator loses the order of the families in
 * CreateTable (see the family-order tests in reads.test.ts).
 */
const ALL = [
  'r1 fam2:a @3000 "a3"',
  'r1 fam2:a @2000 "a2"',
  'r1 fam2:a @1000 "a1"',
  'r1 fam2:b @1000 "b1"',
  'r1 fam1:x @5000 "x5"',
  'r1 fam1:x @4000 "x4"',
  'r1 fam1:y @1000 "yy"',
  'r2 fam2:c @2000 "c2"',
  'r2 fam1:x @1000 "val-1"',
  'r3 fam2:a @1000 "other"',
];

describe.each(selectedTargets())('filters through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);
  let table: Table;

  beforeAll(async () => {
    table = ctx.instance.table(uniqueTableId('filters'));
    await table.create();
    await table.createFamily('fam2');
    await table.createFamily('fam1');
    const at = (value: string, ms: number) => ({ value, timestamp: new Date(ms) });
    // One mutation per version so that each cell gets its own timestamp.
    const writes: [string, string, string, string, number][] = [
      ['r1', 'fam2', 'a', 'a1', 1],
      ['r1', 'fam2', 'a', 'a2', 2],
      ['r1', 'fam2', 'a', 'a3', 3],
      ['r1', 'fam2', 'b', 'b1', 1],
      ['r1', 'fam1', 'x', 'x4', 4],
      ['r1', 'fam1', 'x', 'x5', 5],
      ['r1', 'fam1', 'y', 'yy', 1],
      ['r2', 'fam1', 'x', 'val-1', 1],
      ['r2', 'fam2', 'c', 'c2', 2],
      ['r3', 'fam2', 'a', 'other', 1],
    ];
    for (const [key, family, qualifier, value, ms] of writes) {
      await table.insert([{ key, data: { [family]: { [qualifier]: at(value, ms) } } }]);
    }
  });

  const read = (filter: Filter): Promise<string[]> => readRendered(table, { filter });
  const only = (...indices: number[]): string[] => indices.map((i) => ALL[i] ?? '?');

  it('returns every cell in output order without a filter, and with pass-all', async () => {
    expect(await readRendered(table)).toEqual(ALL);
    expect(await read([{ all: true }])).toEqual(ALL);
  });

  it('returns nothing with block-all', async () => {
    expect(await read([{ all: false }])).toEqual([]);
  });

  it('filters families by RE2 full match', async () => {
    expect(await read([{ family: 'fam1' }])).toEqual(only(4, 5, 6, 8));
    expect(await read([{ family: 'am1' }])).toEqual([]);
    expect(await read([{ family: /fam[12]/ }])).toEqual(ALL);
  });

  it('filters qualifiers by RE2 full match', async () => {
    expect(await read([{ column: 'a' }])).toEqual(only(0, 1, 2, 9));
    expect(await read([{ column: /[ax]/ }])).toEqual(only(0, 1, 2, 4, 5, 8, 9));
    expect(await read([{ column: ['b', 'y'] }])).toEqual(only(3, 6));
  });

  it('filters qualifier ranges within one family', async () => {
    expect(await read([{ column: { family: 'fam2', start: 'a', end: { value: 'c', inclusive: false } } }])).toEqual(only(0, 1, 2, 3, 9));
    expect(await read([{ column: { family: 'fam2', start: { value: 'a', inclusive: false }, end: 'c' } }])).toEqual(only(3, 7));
    expect(await read([{ column: { family: 'fam1', start: 'y' } }])).toEqual(only(6));
  });

  it('filters values by RE2 full match and by range', async () => {
    expect(await read([{ value: 'x.' }])).toEqual(only(4, 5));
    expect(await read([{ value: 'x' }])).toEqual([]);
    expect(await read([{ value: { start: 'a2', end: 'b1' } }])).toEqual(only(0, 1, 3));
    expect(await read([{ value: { start: { value: 'a2', inclusive: false }, end: { value: 'b1', inclusive: false } } }])).toEqual(only(0));
    expect(await read([{ value: { start: 'v' } }])).toEqual(only(4, 5, 6, 8));
  });

  it('filters timestamps to [start, end)', async () => {
    expect(await read([{ time: { start: new Date(2), end: new Date(4) } }])).toEqual(only(0, 1, 7));
    expect(await read([{ time: { start: new Date(4) } }])).toEqual(only(4, 5));
    expect(await read([{ time: { end: new Date(2) } }])).toEqual(only(2, 3, 6, 8, 9));
  });

  it('filters row keys by RE2 full match', async () => {
    expect(await read([{ row: 'r[13]' }])).toEqual(only(0, 1, 2, 3, 4, 5, 6, 9));
    expect(await read([{ row: 'r' }])).toEqual([]);
  });

  it('limits cells per column to the newest versions', async () => {
    expect(await read([{ column: { cellLimit: 1 } }])).toEqual(only(0, 3, 4, 6, 7, 8, 9));
    expect(await read([{ column: { cellLimit: 2 } }])).toEqual(only(0, 1, 3, 4, 5, 6, 7, 8, 9));
  });

  it('limits and offsets cells per row, counting families in creation order', async () => {
    // On the emulator each row, and each stage of a chain, counts in its own family order.
    const combos = (perRow: number[][][]): string[][] =>
      perRow
        .reduce<number[][]>((acc, alternatives) => acc.flatMap((prefix) => alternatives.map((alt) => [...prefix, ...alt])), [[]])
        .map((ix) => only(...ix));
    for (let i = 0; i < 3; i++) {
      expect(
        allowedOn(
          kind,
          only(0, 1, 7, 8, 9),
          'cells-per-row-family-order',
          combos([
            [
              [0, 1],
              [4, 5],
            ],
            [[7, 8]],
            [[9]],
          ]),
        ),
      ).toContainEqual(await read([{ row: { cellLimit: 2 } }]));
      expect(
        allowedOn(
          kind,
          only(5, 6),
          'cells-per-row-family-order',
          combos([
            [
              [5, 6],
              [2, 3],
            ],
          ]),
        ),
      ).toContainEqual(await read([{ row: { cellOffset: 5 } }]));
      expect(
        allowedOn(
          kind,
          only(1, 8),
          'cells-per-row-family-order',
          combos([
            [[0], [1], [4], [5]],
            [[7], [8]],
          ]),
        ),
      ).toContainEqual(await read([{ row: { cellOffset: 1 } }, { row: { cellLimit: 1 } }]));
    }
  });

  it('strips values', async () => {
    expect(await read([{ value: { strip: true } }])).toEqual(ALL.map((line) => line.replace(/"[^"]*"$/, '""')));
  });

  it('applies labels', async () => {
    expect(await read([{ column: 'y' }, { label: 'yes' }])).toEqual(['r1 fam1:y @1000 "yy" [yes]']);
  });

  it('chains filters in order', async () => {
    expect(await read([{ family: 'fam2' }, { column: { cellLimit: 2 } }, { value: { strip: true } }])).toEqual([
      'r1 fam2:a @3000 ""',
      'r1 fam2:a @2000 ""',
      'r1 fam2:b @1000 ""',
      'r2 fam2:c @2000 ""',
      'r3 fam2:a @1000 ""',
    ]);
    // A chain whose later stage removes everything of a row drops the row.
    expect(keysOf((await table.getRows({ filter: [{ row: 'r[12]' }, { column: 'c' }] }))[0])).toEqual(['r2']);
  });

  it('interleaves filters, merging their outputs in output order and keeping duplicates', async () => {
    expect(await read([{ interleave: [[{ column: 'a' }], [{ family: 'fam1' }, { column: 'x' }, { label: 'lx' }]] }])).toEqual([
      'r1 fam2:a @3000 "a3"',
      'r1 fam2:a @2000 "a2"',
      'r1 fam2:a @1000 "a1"',
      'r1 fam1:x @5000 "x5" [lx]',
      'r1 fam1:x @4000 "x4" [lx]',
      'r2 fam1:x @1000 "val-1" [lx]',
      'r3 fam2:a @1000 "other"',
    ]);
    // Two copies of the same cell: their mutual order is unspecified, so sort.
    expect((await read([{ interleave: [[{ column: 'b' }], [{ column: 'b' }, { label: 'dup' }]] }])).sort()).toEqual([
      'r1 fam2:b @1000 "b1"',
      'r1 fam2:b @1000 "b1" [dup]',
    ]);
  });

  it('applies conditions: the pass filter where the predicate matches, else the fail filter', async () => {
    expect(
      await read([
        { condition: { test: [{ column: 'y' }], pass: [{ family: 'fam1' }], fail: [{ column: 'a' }, { column: { cellLimit: 1 } }] } },
      ]),
    ).toEqual(['r1 fam1:x @5000 "x5"', 'r1 fam1:x @4000 "x4"', 'r1 fam1:y @1000 "yy"', 'r3 fam2:a @1000 "other"']);
    // Without a fail filter, rows that do not match produce nothing.
    expect(await read([{ condition: { test: [{ value: 'c2' }], pass: [{ all: true }] } }])).toEqual(only(7, 8));
    // Without a pass filter, rows that match produce nothing.
    expect(await read([{ condition: { test: [{ value: 'c2' }], fail: [{ column: 'y' }] } }])).toEqual(only(6));
  });

  it('sends sink copies straight to the output', async () => {
    const lines = (
      await read([{ family: 'fam2' }, { interleave: [[{ all: true }], [{ label: 's' }, { sink: true }]] }, { column: 'b' }])
    ).sort();
    expect(lines).toEqual(
      expectedOn(
        kind,
        [
          'r1 fam2:a @1000 "a1" [s]',
          'r1 fam2:a @2000 "a2" [s]',
          'r1 fam2:a @3000 "a3" [s]',
          'r1 fam2:b @1000 "b1"',
          'r1 fam2:b @1000 "b1" [s]',
          'r2 fam2:c @2000 "c2" [s]',
          'r3 fam2:a @1000 "other" [s]',
        ],
        'sink-filter',
        ['r1 fam2:b @1000 "b1"', 'r1 fam2:b @1000 "b1" [s]'],
      ),
    );
  });

  it('matches regexes over raw bytes: \\C is any byte, . is any byte but \\n, \\xNN is one byte', async () => {
    const t = ctx.instance.table(uniqueTableId('byte-regex'));
    await t.create({ families: ['cf'] });
    const value = Buffer.from([0xff, 0x0a, 0x00]);
    await t.mutate(
      [
        {
          rowKey: Buffer.from([0xfe, 0x0a]),
          mutations: [{ setCell: { familyName: 'cf', columnQualifier: Buffer.from([0xe9]), timestampMicros: 1000, value } }],
        },
      ],
      {
        rawMutation: true,
      },
    );
    const matches = async (filter: Record<string, unknown>): Promise<number> =>
      assembleCells(await rawReadRows(ctx.client, { tableName: t.name, filter })).length;
    expect(await matches({ valueRegexFilter: Buffer.from('\\xff\\C\\x00') })).toBe(1);
    expect(await matches({ valueRegexFilter: Buffer.from('\\xff.\\x00') })).toBe(0);
    expect(await matches({ valueRegexFilter: Buffer.from('\\C{3}') })).toBe(1);
    expect(await matches({ valueRegexFilter: Buffer.from('\\C{2}') })).toBe(0);
    expect(await matches({ rowKeyRegexFilter: Buffer.from('\\xfe\\n') })).toBe(1);
    expect(await matches({ rowKeyRegexFilter: Buffer.from('\\xfe.') })).toBe(0);
    expect(await matches({ columnQualifierRegexFilter: Buffer.from('\\xe9') })).toBe(1);
    expect(await matches({ columnQualifierRegexFilter: Buffer.from([0xe9]) })).toBe(1);
    expect(await matches({ columnQualifierRegexFilter: Buffer.from('.') })).toBe(1);
  });

  it('samples rows with the given probability, returning whole rows', async () => {
    const t = ctx.instance.table(uniqueTableId('sample'));
    await t.create({ families: ['cf'] });
    const n = 400;
    await t.insert(
      Array.from({ length: n }, (_, i) => ({
        key: `k${String(i).padStart(3, '0')}`,
        data: { cf: { p: { value: 'x', timestamp: new Date(1) }, q: { value: 'y', timestamp: new Date(1) } } },
      })),
    );
    const [rows] = await t.getRows({ filter: [{ row: { sample: 0.5 } }] });
    // Binomial(400, 0.5): sd 10, so [120, 280] is 8 sd wide either side.
    expect(rows.length).toBeGreaterThan(120);
    expect(rows.length).toBeLessThan(280);
    for (const row of rows) expect(Object.keys((row.data as { cf: object }).cf)).toEqual(['p', 'q']);
  });

  it('rejects a filter with an invalid regex with INVALID_ARGUMENT', async () => {
    await expectCode(table.getRows({ filter: [{ row: '(' }] }), status.INVALID_ARGUMENT);
    await expectCode(table.getRows({ filter: [{ value: 'a**' }] }), status.INVALID_ARGUMENT);
    await expectCode(table.getRows({ filter: [{ family: 'fam[' }] }), status.INVALID_ARGUMENT);
  });
});
