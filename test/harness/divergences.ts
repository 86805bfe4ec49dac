import type { TargetKind } from './targets.js';

/**
 * Where Google's emulator (cbtemulator) is known to differ from Cloud
 * Bigtable, and so from tabletop. Tests never skip these: on the emulator
 * they assert the emulator's known wrong answer, on tabletop the right one,
 * so the list stays true (if Google fixes one, its test fails and the entry
 * goes). test/differential/known-divergences.test.ts demonstrates every entry
 * side by side.
 */
export const EMULATOR_DIVERGENCES = {
  'unknown-family-code':
    'A mutation naming a family the table does not have fails with NOT_FOUND; the emulator answers UNKNOWN from MutateRow/CheckAndMutateRow and INTERNAL for each MutateRows entry.',
  'bad-timestamp-code':
    'A SetCell timestamp that is not a multiple of 1000 under MILLIS granularity fails with INVALID_ARGUMENT; the emulator fails such a MutateRows entry with INTERNAL and applies it in MutateRow.',
  'lazy-filter-validation':
    'A filter with an invalid regex fails with INVALID_ARGUMENT whatever the data; the emulator compiles regexes per row, so the error only appears when some row reaches the filter.',
  'mutate-rows-entry-code':
    'An invalid MutateRows entry carries the precise status of its failure; the emulator reports INTERNAL for every failed entry, wrapping the real code in the message.',
  'row-key-limit': 'Row keys longer than 4 KiB are rejected with INVALID_ARGUMENT; the emulator stores them.',
  'qualifier-limit': 'Column qualifiers longer than 16 KiB are rejected with INVALID_ARGUMENT; the emulator stores them.',
  'mutation-count-limit':
    'A request with more than 100,000 mutations fails with INVALID_ARGUMENT ("Too many mutations"); the emulator applies it.',
  'table-id-validation':
    'Table ids must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters (INVALID_ARGUMENT otherwise); the emulator creates any table id.',
  'family-name-validation':
    'Family names must match [-_.a-zA-Z0-9]+ and be at most 64 characters (INVALID_ARGUMENT otherwise); the emulator creates any family name.',
  'min-max-age': 'A max_age GC rule under 1 ms is rejected with INVALID_ARGUMENT; the emulator accepts it.',
  'gc-rule-absent':
    'A family without a GC rule comes back without a gc_rule, so cbt shows "<never>" (the Go client maps an absent rule to "<never>", which is what production sends); the emulator echoes the empty GcRule that cbt sends for "never" and for createfamily, so cbt shows an empty policy.',
  'unknown-family-admin-code': 'Updating or dropping a family that does not exist fails with NOT_FOUND; the emulator answers UNKNOWN.',
  'gc-at-read-time':
    'tabletop never returns cells its GC policy makes collectable (max versions, max age against the clock); the emulator returns them until its background GC runs (production may also return them until compaction, so tabletop is the stricter of the two).',
  'intersection-gc': 'The emulator never applies intersection GC rules, not even in its background GC.',
  'create-table-family-order':
    'Within a row, families come in creation order; for the families of a CreateTable request that is their order in the request (as production does). The emulator loses that order (Go map iteration), so each table gets a random one.',
  'cells-per-row-family-order':
    'Cells-per-row limit and offset count cells with families in creation order (as production does); the emulator counts them in an order that changes from read to read (Go map order), while it outputs them in creation order.',
  'sink-filter':
    'The sink filter sends a copy of each cell straight to the output; the emulator ignores it (the cell passes on to the parent filter instead).',
  'sample-row-keys':
    'SampleRowKeys returns tablet boundaries (for one small tablet just the empty key, with the size as offset); the emulator returns a random ~1% of the row keys.',
  'increment-non-int64-code':
    'Incrementing a cell whose value is not 8 bytes fails with FAILED_PRECONDITION (as production does); the emulator answers UNKNOWN.',
  'aggregate-min-max': 'AddToCell into a min (max) aggregate keeps the smallest (largest) input; the emulator keeps the last one.',
  'check-and-mutate-without-mutations':
    'CheckAndMutateRow with no true and no false mutations fails with INVALID_ARGUMENT (the proto requires at least one); the emulator accepts it.',
  'read-modify-write-without-rules':
    'ReadModifyWriteRow with no rules fails with INVALID_ARGUMENT (the proto requires at least one); the emulator accepts it.',
  'invalid-rmw-rule-code':
    'A ReadModifyWriteRule with neither append_value nor increment_amount (what the Node client sends for increment(column, 0)) fails with INVALID_ARGUMENT; the emulator answers UNKNOWN.',
  'invalid-mutation-code':
    'An invalid mutation in MutateRow (an inverted DeleteFromColumn time range, a negative timestamp other than -1) fails with INVALID_ARGUMENT; the emulator answers UNKNOWN.',
  'filter-limits':
    'A RowFilter over 20,480 serialized bytes or nested deeper than 20 fails with INVALID_ARGUMENT; the emulator accepts both.',
  'row-mutation-atomicity':
    'The mutations of one row are applied all or none: when one is invalid, none is applied. The emulator applies the ones before the invalid one.',
  'label-validation':
    'Labels must match [a-z0-9-]+, be at most 15 characters, and a chain may apply at most one (INVALID_ARGUMENT otherwise, as the proto says); the emulator only checks that some part of the label matches, and accepts several labels per cell.',
  'instance-admin': 'ListInstances and ListClusters work (one implicit instance and cluster); the emulator answers UNIMPLEMENTED.',
  'unknown-instance':
    'An instance exists once CreateInstance or a CreateTable made it; before, calls naming it (ListTables, GetInstance) answer NOT_FOUND, as Cloud Bigtable does. The emulator has no instances: ListTables answers an empty list for any instance.',
} as const satisfies Record<string, string>;

export type DivergenceId = keyof typeof EMULATOR_DIVERGENCES;

/** `correct` when the target is tabletop; the emulator's known wrong answer for divergence `id` when it is the emulator. */
export function expectedOn<C, E>(kind: TargetKind, correct: C, id: DivergenceId, emulator: E): C | E {
  if (!(id in EMULATOR_DIVERGENCES)) throw new Error(`unknown divergence ${id}`);
  return kind === 'emulator' ? emulator : correct;
}

/**
 * For divergences where the emulator is not even deterministic: the answers a
 * target may give. On tabletop only `correct`; on the emulator any of
 * `emulator` (which should include every order it can produce). Use as
 * `expect(allowedOn(...)).toContainEqual(actual)`.
 */
export function allowedOn<C, E>(kind: TargetKind, correct: C, id: DivergenceId, emulator: readonly E[]): (C | E)[] {
  if (!(id in EMULATOR_DIVERGENCES)) throw new Error(`unknown divergence ${id}`);
  return kind === 'emulator' ? [...emulator] : [correct];
}
