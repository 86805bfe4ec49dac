import type { ByteString } from '../../../model/bytes.js';
import type { GcRule } from '../../../model/gc-rule.js';
import type { InstanceName, TableName } from '../../../model/names.js';
import { BYTES_TYPE, type ValueType } from '../../../model/value-type.js';

/**
 * The small world the metamorphic test's operations draw from: few enough
 * keys, qualifiers and timestamps that operations collide often (overwrites,
 * deletes of what exists, drops of written prefixes), with the byte values
 * that stress byte order (0x00, 0xff, prefixes of other keys).
 */

/** The manual clock starts here (ManualClock's default); timestamps are chosen around it. */
export const T0 = Date.UTC(2026, 0, 1) * 1000;
const S = 1_000_000;

export const TABLES = ['t0', 't1'] as const;
export type TableId = (typeof TABLES)[number];

export const INSTANCE: InstanceName = { project: 'p', instance: 'i' };

export function tableName(table: TableId): TableName {
  return { ...INSTANCE, table };
}

export const ROW_KEYS: readonly ByteString[] = ['a', 'a\x00', 'ab', 'abc', 'b', 'ba', 'b\xff', 'c', 'cd', '\xff', '\xff\xff'];
/** Keys and prefixes for ranges, splits and prefix drops: row keys plus keys between them. */
export const BOUND_KEYS: readonly ByteString[] = [...ROW_KEYS, 'aa', 'abd', 'bz', 'c\x00', 'm', 'm03', 'm050', 'm1', 'z'];
export const PREFIXES: readonly ByteString[] = ['a', 'ab', 'b', 'c', 'm', 'm0', 'm1', '\xff', 'z'];

/**
 * Bulk loads write rows `m000`..`m199` (BULK_ROWS of them), enough to fill
 * many SSTable blocks and memtables, so that seeks, block boundaries and
 * merges of larger files are exercised too.
 */
export const BULK_ROWS = 200;
export function bulkKey(i: number): ByteString {
  return `m${String(i).padStart(3, '0')}`;
}
/** A bulk value: `size` bytes that differ per row and per load. */
export function bulkValue(key: ByteString, load: number, size: number): Uint8Array {
  const unit = Buffer.from(`${key}/${load};`, 'latin1');
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += unit.length) unit.copy(out, i, 0, Math.min(unit.length, size - i));
  return new Uint8Array(out);
}
export const QUALIFIERS: readonly ByteString[] = ['', 'q', 'q\x00', 'r', '\xe9'];
/** Cell values: short ones that filters pick apart, an 8-byte counter, and one that fills SSTable blocks. */
export const VALUES: readonly ByteString[] = ['', 'v', 'w', 'vw', '\x00', '\xff\n', '\x00\x00\x00\x00\x00\x00\x00\x05', 'L'.repeat(150)];

/**
 * Explicit cell timestamps (microseconds, whole milliseconds), ascending:
 * two from the distant past (always older than any max age) and a spread
 * around the clock's start, which the `tick` op moves forward.
 */
export const TIMESTAMPS: readonly number[] = [
  1000,
  2000,
  T0 - 2 * S,
  T0,
  T0 + S,
  T0 + 2 * S,
  T0 + 3 * S,
  T0 + 5 * S,
  T0 + 8 * S,
  T0 + 13 * S,
];

/**
 * Each family name comes with the GC rule and value type it is created with
 * (CreateTable and ModifyColumnFamilies create). The name therefore tells the
 * generator which rule a family has, unless a GC-rule update changed it (only
 * generated when no physical GC happens; see op-arbitraries.ts).
 */
export interface FamilySpec {
  readonly gcRule: GcRule | undefined;
  readonly valueType: ValueType;
}

const maxVersions = (versions: number): GcRule => ({ kind: 'maxVersions', versions });
const maxAge = (seconds: number): GcRule => ({ kind: 'maxAge', maxAgeMicros: seconds * S });
const int64Aggregate = (aggregator: 'sum' | 'min' | 'max'): ValueType => ({ kind: 'aggregate', aggregator, input: 'int64' });

export const FAMILIES = {
  plain: { gcRule: undefined, valueType: BYTES_TYPE },
  v1: { gcRule: maxVersions(1), valueType: BYTES_TYPE },
  v2: { gcRule: maxVersions(2), valueType: BYTES_TYPE },
  age: { gcRule: maxAge(4), valueType: BYTES_TYPE },
  uni: { gcRule: { kind: 'union', rules: [maxVersions(2), maxAge(3)] }, valueType: BYTES_TYPE },
  inter: { gcRule: { kind: 'intersection', rules: [maxVersions(1), maxAge(2)] }, valueType: BYTES_TYPE },
  sum: { gcRule: undefined, valueType: int64Aggregate('sum') },
  min: { gcRule: maxVersions(1), valueType: int64Aggregate('min') },
  max: { gcRule: maxAge(5), valueType: int64Aggregate('max') },
} as const satisfies Record<string, FamilySpec>;

export type FamilyName = keyof typeof FAMILIES;
export const FAMILY_NAMES = Object.keys(FAMILIES) as FamilyName[];
export const BYTE_FAMILIES = FAMILY_NAMES.filter((f) => FAMILIES[f].valueType.kind === 'bytes');
export const AGGREGATE_FAMILIES = FAMILY_NAMES.filter((f) => FAMILIES[f].valueType.kind === 'aggregate');

/** GC rules a family may be updated to (ModifyColumnFamilies update); undefined clears the rule. */
export const UPDATE_RULES: readonly (GcRule | undefined)[] = [
  undefined,
  maxVersions(1),
  maxVersions(3),
  maxAge(1),
  maxAge(6),
  { kind: 'union', rules: [maxVersions(1), maxAge(4)] },
  { kind: 'intersection', rules: [maxVersions(2), maxAge(1)] },
  { kind: 'intersection', rules: [{ kind: 'union', rules: [maxVersions(1), maxAge(2)] }, maxAge(5)] },
];

/**
 * True when whether a version is collectable depends on the versions newer
 * than it (a max-versions rule anywhere in the rule). Max age alone looks at
 * each version by itself.
 */
export function countSensitive(rule: GcRule | undefined): boolean {
  if (rule === undefined) return false;
  switch (rule.kind) {
    case 'maxVersions':
      return true;
    case 'maxAge':
      return false;
    case 'union':
    case 'intersection':
      return rule.rules.some(countSensitive);
  }
}
