import fc from 'fast-check';
import type { ByteBound, RowFilter } from '../../../model/filter/index.js';
import { FAMILY_NAMES, QUALIFIERS, TIMESTAMPS, VALUES } from './universe.js';

/**
 * RowFilters over the metamorphic universe: every filter kind, nested up to
 * `depth` levels, built to pass validation (chains and interleaves of two or
 * three, at most one labelled sub-filter per chain, no sink inside a
 * condition), so that reads exercise the data rather than the validator.
 */

const bound = (values: readonly string[]): fc.Arbitrary<ByteBound> =>
  fc.oneof(
    fc.constant<ByteBound>({ kind: 'unbounded' }),
    fc.constantFrom(...values).map((value): ByteBound => ({ kind: 'closed', value })),
    fc.constantFrom(...values).map((value): ByteBound => ({ kind: 'open', value })),
  );

/** A range that validation accepts (not empty). */
const nonEmpty = (start: ByteBound, end: ByteBound): boolean => {
  if (start.kind === 'unbounded' || end.kind === 'unbounded') return true;
  if (start.value < end.value) return true;
  return start.value === end.value && start.kind === 'closed' && end.kind === 'closed';
};

const byteRange = (values: readonly string[]): fc.Arbitrary<[ByteBound, ByteBound]> =>
  fc.tuple(bound(values), bound(values)).filter(([s, e]) => nonEmpty(s, e));

const timestampRange: fc.Arbitrary<RowFilter> = fc
  .tuple(fc.constantFrom(0, ...TIMESTAMPS), fc.option(fc.constantFrom(...TIMESTAMPS), { nil: undefined }))
  .filter(([start, end]) => end === undefined || end > start)
  .map(([start, end]): RowFilter => ({ kind: 'timestampRange', start, end }));

function leaf(labels: boolean, sink: boolean): fc.Arbitrary<RowFilter> {
  const leaves: fc.Arbitrary<RowFilter>[] = [
    fc.constantFrom<RowFilter>({ kind: 'passAll' }, { kind: 'blockAll' }, { kind: 'stripValue' }),
    fc
      .constantFrom('a.*', 'b\\xff', '.', '\\C*', 'a\\x00', '[ab].*', 'c.', 'm0[0-4].', 'm.*5')
      .map((pattern): RowFilter => ({ kind: 'rowKeyRegex', pattern })),
    fc.constantFrom(0.3, 0.7).map((probability): RowFilter => ({ kind: 'rowSample', probability })),
    fc.constantFrom('v.', 'plain|age', '.*', 'sum', 'i.*').map((pattern): RowFilter => ({ kind: 'familyRegex', pattern })),
    fc.constantFrom('', 'q', 'q\\x00', '\\xe9', '.', '[qr]', 'q.*').map((pattern): RowFilter => ({ kind: 'qualifierRegex', pattern })),
    fc
      .tuple(fc.constantFrom(...FAMILY_NAMES), byteRange(QUALIFIERS))
      .map(([family, [start, end]]): RowFilter => ({ kind: 'columnRange', family, start, end })),
    timestampRange,
    fc.constantFrom('v', '.*', '', '\\C*', '[vw]+', '\\x00.*').map((pattern): RowFilter => ({ kind: 'valueRegex', pattern })),
    byteRange(VALUES).map(([start, end]): RowFilter => ({ kind: 'valueRange', start, end })),
    fc.integer({ min: 0, max: 4 }).map((offset): RowFilter => ({ kind: 'cellsPerRowOffset', offset })),
    fc.integer({ min: 1, max: 4 }).map((limit): RowFilter => ({ kind: 'cellsPerRowLimit', limit })),
    fc.integer({ min: 1, max: 2 }).map((limit): RowFilter => ({ kind: 'cellsPerColumnLimit', limit })),
    fc.constantFrom([0x01], [0x76], [0xff, 0x0a]).map((m): RowFilter => ({ kind: 'valueBitmask', mask: Uint8Array.from(m) })),
  ];
  if (labels) leaves.push(fc.constantFrom('l1', 'l2').map((label): RowFilter => ({ kind: 'applyLabel', label })));
  if (sink) leaves.push(fc.constant<RowFilter>({ kind: 'sink' }));
  return fc.oneof(...leaves);
}

function build(depth: number, labels: boolean, sink: boolean): fc.Arbitrary<RowFilter> {
  const base = leaf(labels, sink);
  if (depth === 0) return base;
  const sub = (l: boolean, s: boolean): fc.Arbitrary<RowFilter> => build(depth - 1, l, s);
  const chain = fc
    .tuple(fc.integer({ min: 2, max: 3 }), fc.integer({ min: 0, max: 2 }))
    .chain(([n, labelled]) => fc.tuple(...Array.from({ length: n }, (_, i) => sub(labels && i === labelled, sink))))
    .map((filters): RowFilter => ({ kind: 'chain', filters }));
  const interleave = fc
    .integer({ min: 2, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, () => sub(labels, sink))))
    .map((filters): RowFilter => ({ kind: 'interleave', filters }));
  const option = (): fc.Arbitrary<RowFilter | undefined> => fc.option(sub(labels, false), { nil: undefined });
  const condition = fc
    .tuple(option(), option(), option())
    .map(([predicate, trueFilter, falseFilter]): RowFilter => ({ kind: 'condition', predicate, trueFilter, falseFilter }));
  return fc.oneof(
    { weight: 4, arbitrary: base },
    { weight: 2, arbitrary: chain },
    { weight: 2, arbitrary: interleave },
    { weight: 1, arbitrary: condition },
  );
}

/** A valid filter for ReadRows (sink allowed outside conditions, labels allowed). */
export const readFilter: fc.Arbitrary<RowFilter> = build(2, true, true);

/** A valid CheckAndMutateRow predicate (labels and sink mean nothing there; kept out). */
export const predicateFilter: fc.Arbitrary<RowFilter> = build(2, false, false);
