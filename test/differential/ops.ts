import fc from 'fast-check';

/**
 * Random operation sequences for the differential suite, written in the
 * Node client's own vocabulary (its filter syntax, its mutation entries) so
 * that a failing case prints as something one can paste into a script.
 *
 * The generators stay inside the part of the API where Cloud Bigtable
 * semantics are deterministic and Google's emulator is known to be right,
 * so any difference between the two targets is a finding:
 *  - families have no GC rules (GC timing differs by design) and are created
 *    one by one (the emulator loses CreateTable family order);
 *  - cells-per-row limits and offsets only see one family (the emulator counts
 *    families in a random order);
 *  - no sink (ignored by the emulator), no row sampling (random), at most one
 *    label on any path (multiple labels per cell are not allowed);
 *  - increments only touch a family that holds 8-byte counters; min/max
 *    aggregates are left out (the emulator keeps the last input);
 *  - explicit timestamps are whole milliseconds, row ranges and time ranges
 *    are not inverted, increments are not 0.
 */

export const FAMILIES = ['f1', 'f2'] as const;
export const COUNTER = 'ctr';
export const APPEND = 'app';
export const SUM = 'sum';
export const KEYS = ['k0', 'k1', 'k1a', 'k2', 'k3', 'k\xe9', 'l'] as const;
const QUALIFIERS = ['a', 'b', 'ab', 'c'] as const;
const VALUES = ['v0', 'v1', 'v2', 'x', 'y', 'xy', ''] as const;

type NodeFilter = Record<string, unknown>[];

export type Op =
  | {
      readonly op: 'set';
      readonly entries: readonly { key: string; family: string; qualifier: string; ms: number | 'server'; value: string }[];
    }
  | {
      readonly op: 'deleteColumn';
      readonly key: string;
      readonly family: string;
      readonly qualifier: string;
      readonly fromMs?: number;
      readonly toMs?: number;
    }
  | { readonly op: 'deleteFamily'; readonly key: string; readonly family: string }
  | { readonly op: 'deleteRow'; readonly key: string }
  | { readonly op: 'increment'; readonly key: string; readonly qualifier: string; readonly delta: number }
  | { readonly op: 'append'; readonly key: string; readonly qualifier: string; readonly value: string }
  | { readonly op: 'addToCell'; readonly key: string; readonly qualifier: string; readonly value: number; readonly ms: number }
  | {
      readonly op: 'checkAndMutate';
      readonly key: string;
      readonly predicate: NodeFilter | undefined;
      readonly onMatch: readonly MutationSpec[];
      readonly onNoMatch: readonly MutationSpec[];
    }
  | { readonly op: 'dropPrefix'; readonly prefix: string }
  | {
      readonly op: 'read';
      readonly keys: readonly string[];
      readonly ranges: readonly RangeSpec[];
      readonly limit: number;
      readonly filter: NodeFilter | undefined;
    };

export type MutationSpec =
  | { readonly kind: 'set'; readonly family: string; readonly qualifier: string; readonly ms: number; readonly value: string }
  | { readonly kind: 'deleteColumn'; readonly family: string; readonly qualifier: string }
  | { readonly kind: 'deleteRow' };

export interface RangeSpec {
  readonly start?: { value: string; inclusive: boolean };
  readonly end?: { value: string; inclusive: boolean };
}

const key = fc.constantFrom(...KEYS);
const family = fc.constantFrom(...FAMILIES);
const qualifier = fc.constantFrom(...QUALIFIERS);
const value = fc.constantFrom(...VALUES);
const ms = fc.integer({ min: 0, max: 9 });

const rowRegex = fc.constantFrom('k.*', 'k1.*', '.*a', 'k[0-2]', 'k\\C', 'l|k3', '.*');
const qualifierRegex = fc.constantFrom('a', 'b', '[ab]', 'a.*', '.+', 'c|ab', '.*');
// Not '': the client drops an empty value regex, leaving an empty filter.
const valueRegex = fc.constantFrom('v.*', '.*1', 'x|y', 'xy?', 'v[^1]', '.*');
const bound = (values: fc.Arbitrary<string>) => fc.record({ value: values, inclusive: fc.boolean() });

/**
 * Whether [start, end] is a non-empty, non-inverted range: start < end, or
 * one point with both bounds inclusive. (Whether an empty or inverted
 * qualifier/value range is an error or matches nothing is not something
 * the emulator can tell us; the generators avoid it.)
 */
function ordered(
  start: { value: string; inclusive: boolean } | undefined,
  end: { value: string; inclusive: boolean } | undefined,
): boolean {
  if (!start || !end) return true;
  const c = Buffer.compare(Buffer.from(start.value), Buffer.from(end.value));
  return c < 0 || (c === 0 && start.inclusive && end.inclusive);
}

/** A leaf filter: one stage of a chain, as Node filter objects (a chain of one or two). */
const leaf: fc.Arbitrary<NodeFilter> = fc.oneof(
  family.map((f) => [{ family: f }]),
  fc.constantFrom('f.', 'f1|ctr', 'sum', '.*').map((re) => [{ family: re }]),
  qualifierRegex.map((re) => [{ column: re }]),
  fc.integer({ min: 1, max: 3 }).map((n) => [{ column: { cellLimit: n } }]),
  fc
    .record({
      family: fc.constantFrom(...FAMILIES, COUNTER),
      start: fc.option(bound(qualifier), { nil: undefined }),
      end: fc.option(bound(qualifier), { nil: undefined }),
    })
    .filter((r) => (r.start !== undefined || r.end !== undefined) && ordered(r.start, r.end))
    .map((r) => [{ column: { family: r.family, ...(r.start ? { start: r.start } : {}), ...(r.end ? { end: r.end } : {}) } }]),
  valueRegex.map((re) => [{ value: re }]),
  // The client drops empty bounds, so only non-empty values bound a range, and at least one must.
  fc
    .record({ start: fc.option(bound(value), { nil: undefined }), end: fc.option(bound(value), { nil: undefined }) })
    .filter(
      (r) => ((r.start !== undefined && r.start.value !== '') || (r.end !== undefined && r.end.value !== '')) && ordered(r.start, r.end),
    )
    .map((r) => [
      { value: { ...(r.start && r.start.value !== '' ? { start: r.start } : {}), ...(r.end && r.end.value !== '' ? { end: r.end } : {}) } },
    ]),
  fc.constant<NodeFilter>([{ value: { strip: true } }]),
  fc
    .record({ from: fc.option(ms, { nil: undefined }), to: fc.option(ms, { nil: undefined }) })
    .filter((r) => r.from === undefined || r.to === undefined || r.from < r.to)
    .map((r) => [
      { time: { ...(r.from !== undefined ? { start: new Date(r.from) } : {}), ...(r.to !== undefined ? { end: new Date(r.to) } : {}) } },
    ]),
  rowRegex.map((re) => [{ row: re }]),
  fc.boolean().map((pass): NodeFilter => [{ all: pass }]),
  // Cells-per-row limit/offset behind an exact family, so that only one family reaches it.
  fc
    .record({
      family: fc.constantFrom(...FAMILIES, APPEND),
      kind: fc.constantFrom('cellLimit', 'cellOffset'),
      n: fc.integer({ min: 1, max: 3 }),
    })
    .map((r) => [{ family: r.family }, { row: { [r.kind]: r.n } }]),
);

/** A label-free filter: chains, interleaves and conditions over leaves, nested up to `depth`. */
function labelFree(depth: number): fc.Arbitrary<NodeFilter> {
  if (depth === 0) return leaf;
  const sub = labelFree(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(sub, { minLength: 2, maxLength: 3 }).map((parts) => parts.flat()) },
    { weight: 1, arbitrary: fc.array(sub, { minLength: 2, maxLength: 3 }).map((branches) => [{ interleave: branches }]) },
    {
      weight: 1,
      arbitrary: fc
        .record({ test: sub, pass: fc.option(sub, { nil: undefined }), fail: fc.option(sub, { nil: undefined }) })
        .map((c) => [{ condition: { test: c.test, ...(c.pass ? { pass: c.pass } : {}), ...(c.fail ? { fail: c.fail } : {}) } }]),
    },
  );
}

/** A filter: label-free, or an interleave of a labelled branch and a plain one. */
export const filterArb: fc.Arbitrary<NodeFilter> = fc.oneof(
  { weight: 4, arbitrary: labelFree(2) },
  { weight: 1, arbitrary: fc.tuple(labelFree(1), labelFree(1)).map(([a, b]) => [{ interleave: [[...a, { label: 'lab' }], b] }]) },
);

const mutationSpec: fc.Arbitrary<MutationSpec> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), family, qualifier, ms, value }),
  fc.record({ kind: fc.constant('deleteColumn' as const), family, qualifier }),
  fc.constant({ kind: 'deleteRow' as const }),
);

/** Row ranges that are not inverted: start < end, or one key with both bounds inclusive. */
const range: fc.Arbitrary<RangeSpec> = fc
  .record({ start: fc.option(bound(key), { nil: undefined }), end: fc.option(bound(key), { nil: undefined }) })
  .filter((r) => ordered(r.start, r.end))
  .map((r) => ({ ...(r.start ? { start: r.start } : {}), ...(r.end ? { end: r.end } : {}) }));

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      // At most one server timestamp per call: two in one call could land in one
      // millisecond on one target and in two on the other.
      entries: fc
        .array(
          fc.record({
            key,
            family,
            qualifier,
            ms: fc.oneof({ weight: 9, arbitrary: ms }, { weight: 1, arbitrary: fc.constant('server' as const) }),
            value,
          }),
          {
            minLength: 1,
            maxLength: 4,
          },
        )
        .filter((entries) => entries.filter((e) => e.ms === 'server').length <= 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ key, family, qualifier, fromMs: fc.option(ms, { nil: undefined }), toMs: fc.option(ms, { nil: undefined }) })
      .filter((r) => r.fromMs === undefined || r.toMs === undefined || r.fromMs < r.toMs)
      .map((r) => ({
        op: 'deleteColumn' as const,
        key: r.key,
        family: r.family,
        qualifier: r.qualifier,
        ...(r.fromMs !== undefined ? { fromMs: r.fromMs } : {}),
        ...(r.toMs !== undefined ? { toMs: r.toMs } : {}),
      })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('deleteFamily' as const), key, family: fc.constantFrom(...FAMILIES, COUNTER, APPEND, SUM) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteRow' as const), key }) },
  // Not 0: the Node client then sends a rule with neither increment nor append (see mutations.test.ts).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('increment' as const),
      key,
      qualifier,
      delta: fc.integer({ min: -5, max: 5 }).filter((d) => d !== 0),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('append' as const), key, qualifier, value: fc.constantFrom('p', 'q', 'pq') }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('addToCell' as const),
      key,
      qualifier,
      value: fc.integer({ min: -5, max: 5 }),
      ms: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 2,
    // At least one mutation in one of the branches: the API requires it.
    arbitrary: fc
      .record({
        op: fc.constant('checkAndMutate' as const),
        key,
        predicate: fc.option(labelFree(1), { nil: undefined }),
        onMatch: fc.array(mutationSpec, { maxLength: 2 }),
        onNoMatch: fc.array(mutationSpec, { maxLength: 2 }),
      })
      .filter((c) => c.onMatch.length + c.onNoMatch.length > 0),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('dropPrefix' as const), prefix: fc.constantFrom('k1', 'k', 'l', 'z') }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('read' as const),
      keys: fc.array(key, { maxLength: 3 }),
      ranges: fc.array(range, { maxLength: 2 }),
      limit: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
      filter: fc.option(filterArb, { nil: undefined, freq: 3 }),
    }),
  },
);
