import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';

/**
 * The binary encoding of rows that ORDER BY, GROUP BY and DISTINCT spill to temporary files (exec/spill.ts). It is
 * self-describing (a tag byte per value, so no type is needed to read it back) and exact: every value decodes to an
 * equal one of the same JavaScript kind (INT64 as 8 bytes, FLOAT64 as its IEEE 754 bits, so NaN and -0 survive,
 * strings and JSON as UTF-8, arrays, structs and maps element by element). A row is a u32 length then its values;
 * the file is rows back to back. Nothing outside one query's execution reads it: the format may change freely.
 */

const enum Tag {
  Null = 0,
  False = 1,
  True = 2,
  Int64 = 3,
  Float = 4,
  String = 5,
  Bytes = 6,
  Timestamp = 7,
  Date = 8,
  Json = 9,
  Struct = 10,
  Map = 11,
  Array = 12,
  BigInt = 13,
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Appends encoded rows to a growing buffer. */
export class RowWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  get length(): number {
    return this.at;
  }

  /** Takes the bytes written so far and starts again. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    return out;
  }

  writeRow(row: readonly SqlValue[]): void {
    this.u32(row.length);
    for (const v of row) this.value(v);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  private u8(n: number): void {
    this.room(1);
    this.buf[this.at++] = n;
  }

  private u32(n: number): void {
    this.room(4);
    this.buf.writeUInt32BE(n, this.at);
    this.at += 4;
  }

  private i64(n: bigint): void {
    this.room(8);
    this.buf.writeBigInt64BE(n, this.at);
    this.at += 8;
  }

  private bytes(b: Uint8Array): void {
    this.u32(b.byteLength);
    this.room(b.byteLength);
    this.buf.set(b, this.at);
    this.at += b.byteLength;
  }

  private text(s: string): void {
    this.bytes(Buffer.from(s, 'utf8'));
  }

  private value(v: SqlValue): void {
    if (v === null) return this.u8(Tag.Null);
    switch (typeof v) {
      case 'boolean':
        return this.u8(v ? Tag.True : Tag.False);
      case 'bigint':
        if (v < INT64_MIN || v > INT64_MAX) {
          this.u8(Tag.BigInt);
          return this.text(v.toString());
        }
        this.u8(Tag.Int64);
        return this.i64(v);
      case 'number':
        this.u8(Tag.Float);
        this.room(8);
        this.buf.writeDoubleBE(v, this.at);
        this.at += 8;
        return;
      case 'string':
        this.u8(Tag.String);
        return this.text(v);
    }
    if (v instanceof Uint8Array) {
      this.u8(Tag.Bytes);
      return this.bytes(v);
    }
    if (v instanceof SqlTimestamp) {
      this.u8(Tag.Timestamp);
      return this.i64(v.micros);
    }
    if (v instanceof SqlDate) {
      this.u8(Tag.Date);
      this.room(4);
      this.buf.writeInt32BE(v.days, this.at);
      this.at += 4;
      return;
    }
    if (v instanceof SqlJson) {
      this.u8(Tag.Json);
      return this.text(v.text);
    }
    if (v instanceof SqlStruct) {
      this.u8(Tag.Struct);
      return this.writeRow(v.values);
    }
    if (v instanceof SqlMap) {
      this.u8(Tag.Map);
      this.u32(v.entries.length);
      for (const [k, x] of v.entries) {
        this.value(k);
        this.value(x);
      }
      return;
    }
    this.u8(Tag.Array);
    this.writeRow(v as readonly SqlValue[]);
  }
}

/** Reads rows back from a buffer; `complete` says whether a whole row starts at the current position. */
export class RowReader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  /** Bytes not read yet. */
  rest(): Buffer {
    return this.buf.subarray(this.at);
  }

  /** A whole row is available (its length prefix says how many values, not bytes: so it tries to read it). */
  readRow(): SqlValue[] | undefined {
    const start = this.at;
    try {
      return this.row();
    } catch (e) {
      if (e instanceof RangeError) {
        this.at = start;
        return undefined;
      }
      throw e;
    }
  }

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new RangeError('short');
  }

  private u32(): number {
    this.need(4);
    const n = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return n;
  }

  private bytes(): Buffer {
    const n = this.u32();
    this.need(n);
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  private row(): SqlValue[] {
    const n = this.u32();
    const out = new Array<SqlValue>(n);
    for (let i = 0; i < n; i++) out[i] = this.value();
    return out;
  }

  private value(): SqlValue {
    this.need(1);
    const tag = this.buf[this.at++] as Tag;
    switch (tag) {
      case Tag.Null:
        return null;
      case Tag.False:
        return false;
      case Tag.True:
        return true;
      case Tag.Int64:
        this.need(8);
        return this.buf.readBigInt64BE((this.at += 8) - 8);
      case Tag.BigInt:
        return BigInt(this.bytes().toString('utf8'));
      case Tag.Float:
        this.need(8);
        return this.buf.readDoubleBE((this.at += 8) - 8);
      case Tag.String:
        return this.bytes().toString('utf8');
      case Tag.Bytes:
        return new Uint8Array(this.bytes());
      case Tag.Timestamp:
        this.need(8);
        return new SqlTimestamp(this.buf.readBigInt64BE((this.at += 8) - 8));
      case Tag.Date:
        this.need(4);
        return new SqlDate(this.buf.readInt32BE((this.at += 4) - 4));
      case Tag.Json:
        return new SqlJson(this.bytes().toString('utf8'));
      case Tag.Struct:
        return new SqlStruct(this.row());
      case Tag.Map: {
        const n = this.u32();
        const entries: (readonly [SqlValue, SqlValue])[] = [];
        for (let i = 0; i < n; i++) {
          const k = this.value();
          entries.push([k, this.value()]);
        }
        return new SqlMap(entries);
      }
      case Tag.Array:
        return this.row();
      default:
        throw new Error(`spill file: unknown value tag ${String(tag)}`);
    }
  }
}

/** A rough size in bytes of a value held in memory (what the spill budget counts). */
export function estimatedSize(v: SqlValue): number {
  if (v === null || typeof v === 'boolean') return 8;
  switch (typeof v) {
    case 'bigint':
    case 'number':
      return 16;
    case 'string':
      return 24 + 2 * v.length;
  }
  if (v instanceof Uint8Array) return 96 + v.byteLength;
  if (v instanceof SqlTimestamp || v instanceof SqlDate) return 40;
  if (v instanceof SqlJson) return 48 + 2 * v.text.length;
  if (v instanceof SqlStruct) return 32 + rowSize(v.values);
  if (v instanceof SqlMap) {
    let n = 48;
    for (const [k, x] of v.entries) n += 32 + estimatedSize(k) + estimatedSize(x);
    return n;
  }
  return rowSize(v as readonly SqlValue[]);
}

export function rowSize(row: readonly SqlValue[]): number {
  let n = 32 + 8 * row.length;
  for (const v of row) n += estimatedSize(v);
  return n;
}
