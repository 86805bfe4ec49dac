import fc from 'fast-check';
import type { ByteBound, RowFilter } from '../ast.js';
import { F } from './builders.js';

/**
 * fast-check arbitraries for filters. `anyFilter` covers every kind and value
 * shape (including values validation rejects) for size checks; `validFilter`
 * builds only filters that pass validation, over the qualifiers, families and
 * values of `sampleRows`, for semantic properties.
 */

const byteString = (maxLength = 8): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength }).map((codes) => String.fromCharCode(...codes));

const bound: fc.Arbitrary<ByteBound> = fc.oneof(
  fc.constant<ByteBound>({ kind: 'unbounded' }),
  byteString().map((value): ByteBound => ({ kind: 'closed', value })),
  byteString().map((value): ByteBound => ({ kind: 'open', value })),
);

const int = fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constantFrom(0, 1, 127, 128, 16383, 16384, -1));
const int64 = fc.oneof(fc.constant(0), fc.integer({ min: -1000, max: 1000 }), fc.maxSafeInteger(), fc.nat());

const anyLeaf: fc.Arbitrary<RowFilter> = fc.oneof(
  fc.constantFrom(F.sink, F.pass, F.block, F.strip),
  byteString(40).map(F.key),
  fc.double({ noNaN: true }).map(F.sample),
  fc.string({ maxLength: 10, unit: 'grapheme' }).map(F.family),
  byteString(300).map(F.column),
  fc.tuple(fc.string({ maxLength: 70 }), bound, bound).map(([family, start, end]) => F.columnRange(family, start, end)),
  fc.tuple(int64, fc.option(int64, { nil: undefined })).map(([start, end]) => F.time(start, end)),
  byteString(20).map(F.value),
  fc.tuple(bound, bound).map(([start, end]) => F.valueRange(start, end)),
  int.map(F.rowOffset),
  int.map(F.rowLimit),
  int.map(F.columnLimit),
  fc.string({ maxLength: 20, unit: 'grapheme' }).map(F.label),
  fc.uint8Array({ maxLength: 200 }).map((mask): RowFilter => ({ kind: 'valueBitmask', mask })),
);

/** Any filter shape (not necessarily valid), nested a few levels. */
export const anyFilter: fc.Arbitrary<RowFilter> = fc.letrec<{ filter: RowFilter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyLeaf,
    fc.array(tie('filter'), { maxLength: 4 }).map((fs) => F.chain(...fs)),
    fc.array(tie('filter'), { maxLength: 4 }).map((fs) => F.interleave(...fs)),
    fc
      .tuple(
        fc.option(tie('filter'), { nil: undefined }),
        fc.option(tie('filter'), { nil: undefined }),
        fc.option(tie('filter'), { nil: undefined }),
      )
      .map(([p, t, f]) => F.condition(p, t, f)),
  ),
})).filter;

/** The families, qualifiers and values the semantic properties draw from. */
export const FAMILIES = ['fb', 'fa'] as const; // creation order differs from name order
const QUALIFIERS = ['', 'a', 'b', 'c', '\xe9', '\n'];
const VALUES = ['', 'v', 'w', '\x00', '\xff\n'];

const qualifierRegex = fc.constantFrom('a', '[ab]', '.', '\\C', '.*', '', '\\xe9|c', '(?s).');
const valueRegex = fc.constantFrom('v', '.*', '', '\\C*', '[vw]', '\\x00');
const qualifierBound: fc.Arbitrary<ByteBound> = fc.oneof(
  fc.constant<ByteBound>({ kind: 'unbounded' }),
  fc.constantFrom(...QUALIFIERS).map((value): ByteBound => ({ kind: 'closed', value })),
  fc.constantFrom(...QUALIFIERS).map((value): ByteBound => ({ kind: 'open', value })),
);

/** A cell-level leaf that validation accepts (ranges may be empty: callers filter on validity). */
const validLeaf = (labels: boolean, sink: boolean): fc.Arbitrary<RowFilter> => {
  const leaves: fc.Arbitrary<RowFilter>[] = [
    fc.constantFrom(F.pass, F.block, F.strip),
    fc.constantFrom('k1', 'k.', 'x').map(F.key),
    fc.constantFrom(0.25, 0.75).map(F.sample),
    fc.constantFrom('fa', 'fb', 'f.', 'x').map(F.family),
    qualifierRegex.map(F.column),
    fc.tuple(fc.constantFrom(...FAMILIES), qualifierBound, qualifierBound).map(([f, s, e]) => F.columnRange(f, s, e)),
    fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 6 }))
      .map(([s, e]) => F.time(s * 1000, e === 0 ? undefined : (s + e) * 1000)),
    valueRegex.map(F.value),
    fc.integer({ min: 0, max: 8 }).map(F.rowOffset),
    fc.integer({ min: 1, max: 8 }).map(F.rowLimit),
    fc.integer({ min: 1, max: 3 }).map(F.columnLimit),
    fc.constantFrom([0x00], [0x76], [0xff, 0x0a]).map((m) => F.bitmask(...m)),
  ];
  if (labels) leaves.push(fc.constantFrom('l1', 'l2').map(F.label));
  if (sink) leaves.push(fc.constant(F.sink));
  return fc.oneof(...leaves);
};

/**
 * Filters that pass validation: chains and interleaves of two to three
 * sub-filters, no sink inside conditions, labels only where a chain allows.
 */
export function validFilter(maxDepth = 3): fc.Arbitrary<RowFilter> {
  const build = (depth: number, labels: boolean, sink: boolean): fc.Arbitrary<RowFilter> => {
    const leaf = validLeaf(labels, sink);
    if (depth === 0) return leaf;
    const sub = (l: boolean, s: boolean): fc.Arbitrary<RowFilter> => build(depth - 1, l, s);
    // A chain: at most one sub-filter may carry labels; pick which.
    const chain = fc
      .tuple(fc.integer({ min: 2, max: 3 }), fc.integer({ min: 0, max: 2 }))
      .chain(([n, labelled]) => fc.tuple(...Array.from({ length: n }, (_, i) => sub(labels && i === labelled, sink))))
      .map((fs) => F.chain(...fs));
    const interleave = fc
      .integer({ min: 2, max: 3 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, () => sub(labels, sink))))
      .map((fs) => F.interleave(...fs));
    const condition = fc
      .tuple(
        fc.option(sub(labels, false), { nil: undefined }),
        fc.option(sub(labels, false), { nil: undefined }),
        fc.option(sub(labels, false), { nil: undefined }),
      )
      .map(([p, t, f]) => F.condition(p, t, f));
    return fc.oneof(
      { weight: 3, arbitrary: leaf },
      { weight: 2, arbitrary: chain },
      { weight: 2, arbitrary: interleave },
      { weight: 1, arbitrary: condition },
    );
  };
  return build(maxDepth, true, true);
}

/** A row's cells in output order (FAMILIES order, qualifier ascending, timestamp descending), duplicates-free. */
export const sampleRow = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...FAMILIES), fc.constantFrom(...QUALIFIERS), fc.integer({ min: 0, max: 6 })), {
    minLength: 1,
    maxLength: 14,
    selector: ([f, q, t]) => `${f}\u0000${q}\u0000${t}`,
  })
  .chain((coords) =>
    fc.tuple(fc.constant(coords), fc.array(fc.constantFrom(...VALUES), { minLength: coords.length, maxLength: coords.length })),
  )
  .map(([coords, values]) => ({
    key: 'k1',
    coords: coords.map(([family, qualifier, t], i) => ({ family, qualifier, timestamp: t * 1000, value: values[i]! })),
  }));
