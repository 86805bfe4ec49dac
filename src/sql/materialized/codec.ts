import type { ByteString } from '../../model/bytes.js';
import { fromBytes, toBytes } from '../../model/bytes.js';
import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlType, type SqlValue } from '../types.js';

/**
 * The encodings of a materialized view's internal tables:
 *
 * - `keyPart`: an order-preserving, self-delimiting encoding of a key value (a view row's key, a group's id):
 *   the byte order of encodings is the SQL ascending order of the values, NULL first, and no encoding is a
 *   prefix of another, so concatenations order column by column.
 * - `cellBytes` / `fromCellBytes`: a column's value as the view's cell holds it (what ReadRows returns):
 *   INT64 and TIMESTAMP (microseconds) 8-byte big-endian two's complement, FLOAT64 8-byte and FLOAT32 4-byte
 *   big-endian IEEE 754, BOOL one byte 0 or 1, DATE 4-byte big-endian days since 1970-01-01, STRING and JSON
 *   UTF-8, BYTES as they are; NULL is no cell.
 * - `toStored` / `fromStored`: any value as JSON-safe data (the bookkeeping rows of the state table).
 */

const NULL_TAG = '\x01';
const VALUE_TAG = '\x02';

/** The order-preserving encoding of one key value (types that cannot be keys are refused by the definition). */
export function keyPart(v: SqlValue, t: SqlType): ByteString {
  if (v === null) return NULL_TAG;
  switch (t.kind) {
    case 'INT64':
      return VALUE_TAG + fixed64(BigInt.asUintN(64, (v as bigint) ^ (1n << 63n)));
    case 'TIMESTAMP':
      return VALUE_TAG + fixed64(BigInt.asUintN(64, (v as SqlTimestamp).micros ^ (1n << 63n)));
    case 'DATE':
      return VALUE_TAG + fixed64(BigInt.asUintN(64, BigInt((v as SqlDate).days) ^ (1n << 63n)));
    case 'BOOL':
      return VALUE_TAG + (v === true ? '\x01' : '\x00');
    case 'FLOAT32':
    case 'FLOAT64': {
      const n = v as number;
      // NaN sorts first among numbers (GoogleSQL's order), then -Inf ... +Inf; -0 and 0 are equal.
      if (Number.isNaN(n)) return VALUE_TAG + '\x00'.repeat(8);
      const b = Buffer.alloc(8);
      b.writeDoubleBE(n === 0 ? 0 : n);
      const bits = b.readBigUInt64BE();
      const ordered = (bits & (1n << 63n)) !== 0n ? BigInt.asUintN(64, ~bits) : bits | (1n << 63n);
      return VALUE_TAG + fixed64(ordered);
    }
    case 'STRING':
      return VALUE_TAG + escaped(fromBytes(Buffer.from(v as string, 'utf8')));
    case 'BYTES':
      return VALUE_TAG + escaped(fromBytes(v as Uint8Array));
    default:
      throw new Error(`${t.kind} cannot be a key`);
  }
}

function fixed64(u: bigint): ByteString {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(u);
  return fromBytes(b);
}

/** 0x00 becomes 0x00 0xFF, and 0x00 0x01 ends the string: byte order is kept and the encoding is prefix-free. */
function escaped(s: ByteString): ByteString {
  return s.replace(/\x00/g, '\x00\xff') + '\x00\x01';
}

/** The key of a row: its key values' parts, concatenated. */
export function keyOf(values: readonly SqlValue[], types: readonly SqlType[]): ByteString {
  let out = '';
  values.forEach((v, i) => (out += keyPart(v, types[i]!)));
  return out;
}

export function cellBytes(v: SqlValue, t: SqlType): Uint8Array | undefined {
  if (v === null) return undefined;
  const b8 = (): Buffer => Buffer.alloc(8);
  switch (t.kind) {
    case 'INT64': {
      const b = b8();
      b.writeBigInt64BE(v as bigint);
      return b;
    }
    case 'TIMESTAMP': {
      const b = b8();
      b.writeBigInt64BE((v as SqlTimestamp).micros);
      return b;
    }
    case 'FLOAT64': {
      const b = b8();
      b.writeDoubleBE(v as number);
      return b;
    }
    case 'FLOAT32': {
      const b = Buffer.alloc(4);
      b.writeFloatBE(v as number);
      return b;
    }
    case 'DATE': {
      const b = Buffer.alloc(4);
      b.writeInt32BE((v as SqlDate).days);
      return b;
    }
    case 'BOOL':
      return new Uint8Array([v === true ? 1 : 0]);
    case 'STRING':
      return Buffer.from(v as string, 'utf8');
    case 'JSON':
      return Buffer.from((v as SqlJson).text, 'utf8');
    case 'BYTES':
      return v as Uint8Array;
    default:
      throw new Error(`${t.kind} cannot be a materialized view column`);
  }
}

export function fromCellBytes(b: Uint8Array, t: SqlType): SqlValue {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  switch (t.kind) {
    case 'INT64':
      return buf.readBigInt64BE();
    case 'TIMESTAMP':
      return new SqlTimestamp(buf.readBigInt64BE());
    case 'FLOAT64':
      return buf.readDoubleBE();
    case 'FLOAT32':
      return buf.readFloatBE();
    case 'DATE':
      return new SqlDate(buf.readInt32BE());
    case 'BOOL':
      return buf[0] === 1;
    case 'STRING':
      return buf.toString('utf8');
    case 'JSON':
      return new SqlJson(buf.toString('utf8'));
    default:
      return new Uint8Array(buf);
  }
}

/** A value as JSON-safe data, tagged by kind (the state table's bookkeeping). */
export type Stored = null | boolean | { readonly [tag: string]: unknown };

export function toStored(v: SqlValue): Stored {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return { i: v.toString() };
  if (typeof v === 'number') return { f: Number.isFinite(v) ? v : String(v) };
  if (typeof v === 'string') return { s: v };
  if (v instanceof Uint8Array) return { y: fromBytes(v) };
  if (v instanceof SqlTimestamp) return { t: v.micros.toString() };
  if (v instanceof SqlDate) return { d: v.days };
  if (v instanceof SqlJson) return { j: v.text };
  if (v instanceof SqlStruct) return { st: v.values.map(toStored) };
  if (v instanceof SqlMap) return { m: v.entries.map(([k, x]) => [toStored(k), toStored(x)]) };
  return { a: (v as readonly SqlValue[]).map(toStored) };
}

export function fromStored(s: Stored): SqlValue {
  if (s === null || typeof s === 'boolean') return s;
  const o = s as Record<string, unknown>;
  if ('i' in o) return BigInt(o['i'] as string);
  if ('f' in o) return typeof o['f'] === 'number' ? o['f'] : Number(o['f']);
  if ('s' in o) return o['s'] as string;
  if ('y' in o) return new Uint8Array(toBytes(o['y'] as string));
  if ('t' in o) return new SqlTimestamp(BigInt(o['t'] as string));
  if ('d' in o) return new SqlDate(o['d'] as number);
  if ('j' in o) return new SqlJson(o['j'] as string);
  if ('st' in o) return new SqlStruct((o['st'] as Stored[]).map(fromStored));
  if ('m' in o) return new SqlMap((o['m'] as [Stored, Stored][]).map(([k, x]) => [fromStored(k), fromStored(x)] as const));
  return (o['a'] as Stored[]).map(fromStored);
}
