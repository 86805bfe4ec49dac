import type { Cell } from './table-cells.js';

/**
 * The file formats of `tabletop export` and `tabletop import`, one cell version per record, in the order the
 * table is read (row key, then family and qualifier as the server sends them, newest version first). README.md
 * ("Moving data") defines them for users; this is the code of that definition.
 *
 * Bytes (row keys, qualifiers, values) are written as text when they are UTF-8 without control characters and
 * do not start with "b64:"; anything else as "b64:" followed by standard base64. So every byte string round-trips,
 * and text stays readable. Timestamps are microseconds since the epoch, as a decimal integer (int64).
 */
export type CellFormat = 'jsonl' | 'csv' | 'seqfile';
export const CELL_FORMATS: readonly CellFormat[] = ['jsonl', 'csv', 'seqfile'];

const B64 = 'b64:';
const DECODER = new TextDecoder('utf-8', { fatal: true });

export function encodeBytes(b: Buffer): string {
  let text: string;
  try {
    text = DECODER.decode(b);
  } catch {
    return B64 + b.toString('base64');
  }
  // eslint-disable-next-line no-control-regex
  if (text.startsWith(B64) || /[\u0000-\u001f\u007f]/.test(text)) return B64 + b.toString('base64');
  return text;
}

export function decodeBytes(s: string): Buffer {
  if (!s.startsWith(B64)) return Buffer.from(s, 'utf8');
  const body = s.slice(B64.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0)
    throw new FormatError(`bad base64 after "b64:": ${JSON.stringify(body.slice(0, 40))}`);
  return Buffer.from(body, 'base64');
}

/** A record that cannot be read; its message names what is wrong (the caller adds the line number). */
export class FormatError extends Error {}

const INT64 = /^-?\d{1,19}$/;
const FAMILY = /^[-_.a-zA-Z0-9]+$/;

function checkedCell(key: Buffer, family: string, qualifier: Buffer, timestamp: string, value: Buffer): Cell {
  if (key.length === 0) throw new FormatError('the row key is empty');
  if (!FAMILY.test(family)) throw new FormatError(`bad family name ${JSON.stringify(family)}`);
  if (!INT64.test(timestamp) || BigInt(timestamp) > 9223372036854775807n || BigInt(timestamp) < -9223372036854775808n)
    throw new FormatError(`bad timestamp ${JSON.stringify(timestamp)} (microseconds, a decimal int64)`);
  return { key, family, qualifier, timestamp, value };
}

// JSON lines: {"key":K,"family":F,"qualifier":Q,"timestamp":"T","value":V}
export function cellToJsonl(c: Cell): string {
  return JSON.stringify({
    key: encodeBytes(c.key),
    family: c.family,
    qualifier: encodeBytes(c.qualifier),
    timestamp: c.timestamp,
    value: encodeBytes(c.value),
  });
}

export function cellFromJsonl(line: string): Cell {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch (e) {
    throw new FormatError(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new FormatError('not a JSON object');
  const r = o as Record<string, unknown>;
  const str = (name: string): string => {
    const v = r[name];
    if (typeof v !== 'string') throw new FormatError(`"${name}" must be a string`);
    return v;
  };
  const ts = r['timestamp'];
  if (typeof ts !== 'string' && !(typeof ts === 'number' && Number.isSafeInteger(ts)))
    throw new FormatError('"timestamp" must be a decimal string (microseconds)');
  return checkedCell(decodeBytes(str('key')), str('family'), decodeBytes(str('qualifier')), String(ts), decodeBytes(str('value')));
}

// CSV (RFC 4180, one record per line: encoded fields never hold a line break): key,family,qualifier,timestamp,value
export const CSV_HEADER = 'key,family,qualifier,timestamp,value';

function csvField(s: string): string {
  return /[",]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s;
}

export function cellToCsv(c: Cell): string {
  return [encodeBytes(c.key), c.family, encodeBytes(c.qualifier), c.timestamp, encodeBytes(c.value)].map(csvField).join(',');
}

export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new FormatError('a quoted field is not closed');
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(s);
      if (i === line.length) return fields;
      if (line[i] !== ',') throw new FormatError(`a "," must follow a quoted field (column ${i + 1})`);
      i++;
    } else {
      const comma = line.indexOf(',', i);
      if (comma < 0) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, comma));
      i = comma + 1;
    }
  }
}

export function cellFromCsv(line: string): Cell {
  const f = splitCsvLine(line);
  if (f.length !== 5) throw new FormatError(`${f.length} fields, expected 5 (${CSV_HEADER})`);
  return checkedCell(decodeBytes(f[0]!), f[1]!, decodeBytes(f[2]!), f[3]!, decodeBytes(f[4]!));
}

// seqfile: the magic "TTCELLS1", then per cell: u32 key length, key, u8 family length, family, u32 qualifier
// length, qualifier, i64 timestamp, u32 value length, value (all integers big-endian); the file ends after a record.
export const SEQFILE_MAGIC = Buffer.from('TTCELLS1', 'latin1');

export function cellToSeqfile(c: Cell): Buffer {
  const family = Buffer.from(c.family, 'utf8');
  const out = Buffer.allocUnsafe(4 + c.key.length + 1 + family.length + 4 + c.qualifier.length + 8 + 4 + c.value.length);
  let o = out.writeUInt32BE(c.key.length, 0);
  o += c.key.copy(out, o);
  o = out.writeUInt8(family.length, o);
  o += family.copy(out, o);
  o = out.writeUInt32BE(c.qualifier.length, o);
  o += c.qualifier.copy(out, o);
  o = out.writeBigInt64BE(BigInt(c.timestamp), o);
  o = out.writeUInt32BE(c.value.length, o);
  c.value.copy(out, o);
  return out;
}

/**
 * Reads seqfile records from a stream of chunks, keeping at most one record plus one chunk in memory. A damaged
 * record (a truncated file, a bad family) ends the reading with a FormatError that names the record number and
 * its byte offset: a length-prefixed file cannot be resynchronized.
 */
export async function* readSeqfile(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ cell: Cell; record: number }> {
  let buf: Buffer = Buffer.alloc(0);
  let offset = 0;
  let record = 0;
  let ended = false;
  const it = chunks[Symbol.asyncIterator]();
  const need = async (n: number): Promise<boolean> => {
    while (buf.length < n && !ended) {
      const next = await it.next();
      if (next.done === true) ended = true;
      else buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
    }
    return buf.length >= n;
  };
  const take = (n: number): Buffer => {
    const b = buf.subarray(0, n);
    buf = buf.subarray(n);
    offset += n;
    return b;
  };
  if (!(await need(SEQFILE_MAGIC.length)) || !take(SEQFILE_MAGIC.length).equals(SEQFILE_MAGIC))
    throw new FormatError('not a tabletop seqfile (it must start with "TTCELLS1")');
  for (;;) {
    if (!(await need(1))) return;
    record++;
    const at = offset;
    const truncated = (): FormatError => new FormatError(`record ${record} (byte ${at}): the file ends inside it`);
    const field = async (lengthBytes: 1 | 4): Promise<Buffer> => {
      if (!(await need(lengthBytes))) throw truncated();
      const len = lengthBytes === 1 ? take(1).readUInt8(0) : take(4).readUInt32BE(0);
      if (!(await need(len))) throw truncated();
      return Buffer.from(take(len));
    };
    const key = await field(4);
    const family = (await field(1)).toString('utf8');
    const qualifier = await field(4);
    if (!(await need(8))) throw truncated();
    const timestamp = take(8).readBigInt64BE(0).toString();
    const value = await field(4);
    try {
      yield { cell: checkedCell(key, family, qualifier, timestamp, value), record };
    } catch (e) {
      if (e instanceof FormatError) throw new FormatError(`record ${record} (byte ${at}): ${e.message}`);
      throw e;
    }
  }
}
