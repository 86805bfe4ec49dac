import { invalidArgument } from '../../model/errors.js';
import { SqlDate, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue, sameType, typeText } from '../../sql/types.js';
import { int64ToBigInt } from './int64.js';
import { VALUE_KINDS, firstSet } from './mutation.js';
import type { PType } from './proto-types.js';
import { sqlTypeFromProto } from './sql-type.js';
import { snake } from './value-type.js';
import type { Writer } from './wire.js';

/**
 * google.bigtable.v2.Value ↔ SqlValue for SQL.
 *
 * In: ExecuteQuery's `params`, in the loader's object form. Each carries its
 * outer `type`, which must be the declared one; the kind must be the one that
 * type uses (INT64 int_value, FLOAT32 and FLOAT64 float_value, ...); a value
 * with no kind is NULL. Array elements carry no type of their own.
 *
 * Out: ProtoRows values, written straight to a protobufjs Writer (the hot
 * path). A STRUCT is its fields in order as an array_value, a MAP an
 * array_value of [key, value] array_values, NULL a Value with no kind, JSON
 * its text as string_value.
 */

export interface PValue {
  type?: PType | null;
  kind?: string | null;
  bytesValue?: Buffer | Uint8Array | null;
  stringValue?: string | null;
  intValue?: string | number | null;
  boolValue?: boolean | null;
  floatValue?: number | null;
  timestampValue?: { seconds?: string | number | null; nanos?: number | null } | null;
  dateValue?: { year?: number | null; month?: number | null; day?: number | null } | null;
  arrayValue?: { values?: PValue[] | null } | null;
  [other: string]: unknown;
}

/** The parameters of an ExecuteQuery against the declared types: every declared one present, no other. */
export function sqlParamsFromProto(
  params: Readonly<Record<string, PValue>> | null | undefined,
  declared: ReadonlyMap<string, SqlType>,
): Map<string, SqlValue> {
  const out = new Map<string, SqlValue>();
  const given = params ?? {};
  for (const [name, value] of Object.entries(given)) {
    const type = declared.get(name);
    if (type === undefined) throw invalidArgument(`params[${name}]: the query was not prepared with a parameter @${name}`);
    const sent = sqlTypeFromProto(value.type, `params[${name}].type`);
    if (!sameType(sent, type)) {
      throw invalidArgument(`params[${name}]: the query was prepared with @${name} of type ${typeText(type)}, got ${typeText(sent)}`);
    }
    out.set(name, sqlValueFromProto(value, type, `params[${name}]`));
  }
  for (const name of declared.keys()) {
    if (!out.has(name)) throw invalidArgument(`params[${name}]: the query needs a value for @${name}`);
  }
  return out;
}

/** A value of type `type` (the kind must fit it); `what` names it in errors. */
export function sqlValueFromProto(v: PValue, type: SqlType, what: string): SqlValue {
  const kind = valueKind(v);
  if (kind === undefined) return null;
  const expected = KIND_OF[type.kind];
  if (kind !== expected) throw invalidArgument(`${what}: a ${typeText(type)} value needs ${snake(expected)}, got ${snake(kind)}`);
  switch (type.kind) {
    case 'BYTES':
      return new Uint8Array(v.bytesValue!);
    case 'STRING':
      return v.stringValue!;
    case 'JSON':
      return v.stringValue!;
    case 'INT64':
      return int64ToBigInt(v.intValue, what);
    case 'FLOAT32':
      return Math.fround(v.floatValue!);
    case 'FLOAT64':
      return v.floatValue!;
    case 'BOOL':
      return v.boolValue!;
    case 'TIMESTAMP':
      return timestampFromProto(v.timestampValue!, what);
    case 'DATE':
      return dateFromProto(v.dateValue!, what);
    case 'ARRAY':
      return (v.arrayValue!.values ?? []).map((e, i) => sqlValueFromProto(e, type.element, `${what}[${i}]`));
    case 'STRUCT': {
      const values = v.arrayValue!.values ?? [];
      if (values.length !== type.fields.length) {
        throw invalidArgument(`${what}: a ${typeText(type)} needs ${type.fields.length} field values, got ${values.length}`);
      }
      return new SqlStruct(values.map((e, i) => sqlValueFromProto(e, type.fields[i]!.type, `${what}.${type.fields[i]!.name || i}`)));
    }
    case 'MAP': {
      const pair: SqlType = {
        kind: 'STRUCT',
        fields: [
          { name: 'key', type: type.key },
          { name: 'value', type: type.value },
        ],
      };
      const entries = (v.arrayValue!.values ?? []).map((e, i) => {
        const s = sqlValueFromProto(e, pair, `${what}[${i}]`);
        if (s === null) throw invalidArgument(`${what}[${i}]: a map entry cannot be NULL`);
        const [key, value] = (s as SqlStruct).values;
        return [key!, value!] as const;
      });
      return new SqlMap(entries);
    }
  }
}

const KIND_OF: Readonly<Record<SqlType['kind'], string>> = {
  BYTES: 'bytesValue',
  STRING: 'stringValue',
  JSON: 'stringValue',
  INT64: 'intValue',
  FLOAT32: 'floatValue',
  FLOAT64: 'floatValue',
  BOOL: 'boolValue',
  TIMESTAMP: 'timestampValue',
  DATE: 'dateValue',
  ARRAY: 'arrayValue',
  STRUCT: 'arrayValue',
  MAP: 'arrayValue',
};

function valueKind(v: PValue): string | undefined {
  return typeof v.kind === 'string' ? v.kind : firstSet(v, VALUE_KINDS);
}

const MIN_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
const MAX_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z

function timestampFromProto(t: NonNullable<PValue['timestampValue']>, what: string): SqlTimestamp {
  const seconds = int64ToBigInt(t.seconds, `${what}.seconds`);
  const nanos = t.nanos ?? 0;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos >= 1e9) throw invalidArgument(`${what}.nanos = ${nanos} is out of range`);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) throw invalidArgument(`${what}: the timestamp is outside 0001-01-01 to 9999-12-31`);
  // GoogleSQL for Bigtable keeps microseconds: finer digits are dropped.
  return new SqlTimestamp(seconds * 1_000_000n + BigInt(Math.floor(nanos / 1000)));
}

const MILLIS_PER_DAY = 86_400_000;

function dateFromProto(d: NonNullable<PValue['dateValue']>, what: string): SqlDate {
  const year = d.year ?? 0;
  const month = d.month ?? 0;
  const day = d.day ?? 0;
  // setUTCFullYear, not Date.UTC (which reads years 0–99 as 1900–1999).
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  if (year < 1 || year > 9999 || t.getUTCFullYear() !== year || t.getUTCMonth() !== month - 1 || t.getUTCDate() !== day) {
    throw invalidArgument(`${what}: ${year}-${month}-${day} is not a date from 0001-01-01 to 9999-12-31`);
  }
  return new SqlDate(t.getTime() / MILLIS_PER_DAY);
}

// ---------------------------------------------------------------------------
// Out: ProtoRows.

// Field keys: (number << 3) | wire type.
const BYTES_VALUE = (2 << 3) | 2;
const STRING_VALUE = (3 << 3) | 2;
const ARRAY_VALUE = (4 << 3) | 2;
const INT_VALUE = (6 << 3) | 0;
const BOOL_VALUE = (10 << 3) | 0;
const FLOAT_VALUE = (11 << 3) | 1;
const TIMESTAMP_VALUE = (12 << 3) | 2;
const DATE_VALUE = (13 << 3) | 2;
const ARRAY_VALUES = (1 << 3) | 2;
/** ProtoRows.values */
export const PROTO_ROWS_VALUES = (2 << 3) | 2;

/** Writes one Value message's fields (the caller frames it) for `v` of type `type`. */
export function writeSqlValue(w: Writer, v: SqlValue, type: SqlType): void {
  if (v === null) return;
  switch (type.kind) {
    case 'BYTES':
      w.uint32(BYTES_VALUE).bytes(v as Uint8Array);
      return;
    case 'STRING':
      w.uint32(STRING_VALUE).string(v as string);
      return;
    case 'JSON':
      w.uint32(STRING_VALUE).string((v as { text: string }).text);
      return;
    case 'INT64':
      w.uint32(INT_VALUE).int64(int64Bits(v as bigint));
      return;
    case 'FLOAT32':
    case 'FLOAT64':
      w.uint32(FLOAT_VALUE).double(v as number);
      return;
    case 'BOOL':
      w.uint32(BOOL_VALUE).bool(v as boolean);
      return;
    case 'TIMESTAMP': {
      const micros = (v as SqlTimestamp).micros;
      let seconds = micros / 1_000_000n;
      let rest = micros % 1_000_000n;
      if (rest < 0n) {
        seconds -= 1n;
        rest += 1_000_000n;
      }
      w.uint32(TIMESTAMP_VALUE).fork();
      if (seconds !== 0n) w.uint32(1 << 3).int64(int64Bits(seconds));
      if (rest !== 0n) w.uint32(2 << 3).int32(Number(rest) * 1000);
      w.ldelim();
      return;
    }
    case 'DATE': {
      const d = new Date((v as SqlDate).days * MILLIS_PER_DAY);
      w.uint32(DATE_VALUE).fork();
      w.uint32(1 << 3).int32(d.getUTCFullYear());
      w.uint32(2 << 3).int32(d.getUTCMonth() + 1);
      w.uint32(3 << 3).int32(d.getUTCDate());
      w.ldelim();
      return;
    }
    case 'ARRAY':
      w.uint32(ARRAY_VALUE).fork();
      for (const e of v as readonly SqlValue[]) writeElement(w, e, type.element);
      w.ldelim();
      return;
    case 'STRUCT':
      w.uint32(ARRAY_VALUE).fork();
      (v as SqlStruct).values.forEach((e, i) => writeElement(w, e, type.fields[i]!.type));
      w.ldelim();
      return;
    case 'MAP':
      w.uint32(ARRAY_VALUE).fork();
      for (const [key, value] of (v as SqlMap).entries) {
        w.uint32(ARRAY_VALUES).fork();
        w.uint32(ARRAY_VALUE).fork();
        writeElement(w, key, type.key);
        writeElement(w, value, type.value);
        w.ldelim();
        w.ldelim();
      }
      w.ldelim();
      return;
  }
}

/** One element of an ArrayValue: a framed Value. */
function writeElement(w: Writer, v: SqlValue, type: SqlType): void {
  w.uint32(ARRAY_VALUES).fork();
  writeSqlValue(w, v, type);
  w.ldelim();
}

/** A bigint as protobufjs's LongBits-like { low, high }, so that the full int64 range is written exactly. */
function int64Bits(v: bigint): { low: number; high: number; unsigned: boolean } {
  const u = BigInt.asUintN(64, v);
  return { low: Number(u & 0xffffffffn) | 0, high: Number(u >> 32n) | 0, unsigned: false };
}
