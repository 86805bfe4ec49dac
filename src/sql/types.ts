/**
 * GoogleSQL for Bigtable: the types and runtime values every part of the SQL
 * engine shares (parser, analyzer, functions, executor) and the server's wire
 * conversion reads (src/server converts SqlType to and from google.bigtable.v2.Type
 * and SqlValue to google.bigtable.v2.Value; protobuf never reaches src/sql).
 *
 * Values are untagged where the static type tells them apart: a value is read
 * with the SqlType the analyzer gave its column or expression.
 */

export type SqlType =
  | { readonly kind: 'INT64' }
  | { readonly kind: 'FLOAT32' }
  | { readonly kind: 'FLOAT64' }
  | { readonly kind: 'BOOL' }
  | { readonly kind: 'STRING' }
  | { readonly kind: 'BYTES' }
  | { readonly kind: 'TIMESTAMP' }
  | { readonly kind: 'DATE' }
  | { readonly kind: 'JSON' }
  | { readonly kind: 'ARRAY'; readonly element: SqlType }
  /** Field names may be empty (`STRUCT(1, 2)`); the wire sends them as they are. */
  | { readonly kind: 'STRUCT'; readonly fields: readonly { readonly name: string; readonly type: SqlType }[] }
  /** Keys are BYTES, STRING or INT64 (what the clients can decode). */
  | { readonly kind: 'MAP'; readonly key: SqlType; readonly value: SqlType };

export const INT64: SqlType = { kind: 'INT64' };
export const FLOAT32: SqlType = { kind: 'FLOAT32' };
export const FLOAT64: SqlType = { kind: 'FLOAT64' };
export const BOOL: SqlType = { kind: 'BOOL' };
export const STRING: SqlType = { kind: 'STRING' };
export const BYTES: SqlType = { kind: 'BYTES' };
export const TIMESTAMP: SqlType = { kind: 'TIMESTAMP' };
export const DATE: SqlType = { kind: 'DATE' };
export const JSON_TYPE: SqlType = { kind: 'JSON' };

/** A point in time: microseconds since the Unix epoch (GoogleSQL for Bigtable's precision), UTC. */
export class SqlTimestamp {
  constructor(readonly micros: bigint) {}
}

/** A civil date: days since 1970-01-01 (negative before), 0001-01-01 to 9999-12-31. */
export class SqlDate {
  constructor(readonly days: number) {}
}

/** A STRUCT's field values, in the order of its type's fields. */
export class SqlStruct {
  constructor(readonly values: readonly SqlValue[]) {}
}

/** A MAP's entries, keys unique, in ascending key order (bytes, strings by code point, integers numerically). */
export class SqlMap {
  constructor(readonly entries: readonly (readonly [SqlValue, SqlValue])[]) {}
}

/** A JSON value, kept as its canonical text. */
export class SqlJson {
  constructor(readonly text: string) {}
}

/**
 * A runtime value; null is SQL NULL for every type.
 * INT64 bigint; FLOAT32/FLOAT64 number; BOOL boolean; STRING string; BYTES Uint8Array;
 * TIMESTAMP SqlTimestamp; DATE SqlDate; JSON SqlJson; ARRAY SqlValue[]; STRUCT SqlStruct; MAP SqlMap.
 */
export type SqlValue =
  null | bigint | number | boolean | string | Uint8Array | SqlTimestamp | SqlDate | SqlJson | SqlStruct | SqlMap | readonly SqlValue[];

/** The type as GoogleSQL writes it: `ARRAY<STRUCT<a INT64, b STRING>>`, `MAP<BYTES, BYTES>`. */
export function typeText(t: SqlType): string {
  switch (t.kind) {
    case 'ARRAY':
      return `ARRAY<${typeText(t.element)}>`;
    case 'STRUCT':
      return `STRUCT<${t.fields.map((f) => (f.name === '' ? typeText(f.type) : `${f.name} ${typeText(f.type)}`)).join(', ')}>`;
    case 'MAP':
      return `MAP<${typeText(t.key)}, ${typeText(t.value)}>`;
    default:
      return t.kind;
  }
}

/** Structural equality of types (struct field names included). */
export function sameType(a: SqlType, b: SqlType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'ARRAY':
      return sameType(a.element, (b as typeof a).element);
    case 'MAP':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'STRUCT': {
      const bf = (b as typeof a).fields;
      return a.fields.length === bf.length && a.fields.every((f, i) => f.name === bf[i]!.name && sameType(f.type, bf[i]!.type));
    }
    default:
      return true;
  }
}
