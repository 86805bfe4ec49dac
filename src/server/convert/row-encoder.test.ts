import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cell, Row } from '../../model/cell.js';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { encodeReadModifyWriteRowResponse } from './row-encoder.js';

const method = loaderMethod(DATA, 'ReadModifyWriteRow');

/** The response object the generic (loader) serializer takes, nested by family and column independently of the encoder. */
function reference(row: Row): object {
  const families: { name: string; columns: { qualifier: Buffer; cells: object[] }[] }[] = [];
  for (const c of row.cells) {
    let family = families[families.length - 1];
    if (family === undefined || family.name !== c.family) families.push((family = { name: c.family, columns: [] }));
    let column = family.columns[family.columns.length - 1];
    const q = Buffer.from(c.qualifier, 'latin1');
    if (column === undefined || !column.qualifier.equals(q)) family.columns.push((column = { qualifier: q, cells: [] }));
    column.cells.push({ timestampMicros: String(c.timestamp), value: Buffer.from(c.value), labels: [...c.labels] });
  }
  return { row: { key: Buffer.from(row.key, 'latin1'), families } };
}

const v = (s: string): Buffer => Buffer.from(s, 'latin1');

interface Decoded {
  row?: {
    key?: Buffer;
    families?: {
      name?: string;
      columns?: { qualifier?: Buffer; cells?: { timestampMicros?: string; value?: Buffer; labels?: string[] }[] }[];
    }[];
  };
}

/** A decoded response with every default filled in (absent and default-valued fields read the same in proto3). */
function canonical(m: unknown): unknown {
  const row = (m as Decoded).row ?? {};
  return {
    key: (row.key ?? Buffer.alloc(0)).toString('hex'),
    families: (row.families ?? []).map((f) => ({
      name: f.name ?? '',
      columns: (f.columns ?? []).map((c) => ({
        qualifier: (c.qualifier ?? Buffer.alloc(0)).toString('hex'),
        cells: (c.cells ?? []).map((x) => [x.timestampMicros ?? '0', (x.value ?? Buffer.alloc(0)).toString('hex'), x.labels ?? []]),
      })),
    })),
  };
}

describe('encodeReadModifyWriteRowResponse', () => {
  it('nests a row by family and column, in the order given', () => {
    const row: Row = {
      key: 'k',
      cells: [
        { family: 'b', qualifier: 'q', timestamp: 2000, value: v('1'), labels: [] },
        { family: 'b', qualifier: 'q', timestamp: 1000, value: v('2'), labels: [] },
        { family: 'b', qualifier: 'r', timestamp: 1000, value: v('3'), labels: [] },
        { family: 'a', qualifier: 'q', timestamp: 1000, value: v('4'), labels: [] },
      ],
    };
    const decoded = method.responseDeserialize(encodeReadModifyWriteRowResponse({ row })) as {
      row: {
        key: Buffer;
        families: { name: string; columns: { qualifier: Buffer; cells: { timestampMicros: string; value: Buffer }[] }[] }[];
      };
    };
    expect(decoded.row.key.toString()).toBe('k');
    expect(
      decoded.row.families.map((f) => [
        f.name,
        f.columns.map((c) => [c.qualifier.toString(), c.cells.map((x) => [x.timestampMicros, x.value.toString()])]),
      ]),
    ).toEqual([
      [
        'b',
        [
          [
            'q',
            [
              ['2000', '1'],
              ['1000', '2'],
            ],
          ],
          ['r', [['1000', '3']]],
        ],
      ],
      ['a', [['q', [['1000', '4']]]]],
    ]);
  });

  it('decodes to the same message as the generic serializer writes, for any row', () => {
    // The generic serializer also sends fields that hold their default value (a zero timestamp, an
    // empty qualifier); proto3 readers cannot tell, so the messages are compared decoded.
    const cell: fc.Arbitrary<Cell> = fc.record({
      family: fc.constantFrom('a', 'cf', 'fäm'),
      qualifier: fc.oneof(
        fc.constant(''),
        fc.string({ maxLength: 4 }).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
      ),
      timestamp: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 52 })),
      value: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      labels: fc.array(fc.constantFrom('x', 'label-ü'), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 8 }).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
        fc.array(cell, { maxLength: 12 }),
        (key, cells) => {
          // Output order groups a family's cells and a column's cells together.
          const sorted = [...cells].sort((x, y) =>
            x.family < y.family
              ? -1
              : x.family > y.family
                ? 1
                : x.qualifier < y.qualifier
                  ? -1
                  : x.qualifier > y.qualifier
                    ? 1
                    : y.timestamp - x.timestamp,
          );
          const row: Row = { key, cells: sorted };
          expect(canonical(method.responseDeserialize(encodeReadModifyWriteRowResponse({ row })))).toEqual(
            canonical(method.responseDeserialize(method.responseSerialize(reference(row)))),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
