import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ByteString } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import type { RangeBound, RowRange, RowSet } from '../../model/key-range.js';
import { serviceDefinition } from '../protos.js';
import type { PReadRowsRequest } from './proto-types.js';
import { type Reader, WIRE_LEN, WireError, createReader, latin1, readKey, readLengthEnd, skipField } from './wire.js';

/**
 * Decoder of google.bigtable.v2.ReadRowsRequest that takes its row set
 * straight from the wire to model keys and ranges (Latin-1 byte strings),
 * in slices that yield (decodeRowSet, called by the handler), and leaves the
 * other fields to the generic loader decoder. A request may carry a million
 * ranges (about 24 MiB): decoded at once as protobuf objects, then loader
 * objects with a Buffer per key, then model ranges, it made three million
 * objects and held every other client for two seconds, most of it in the
 * garbage collector.
 *
 *   ReadRowsRequest := rows(2) RowSet | any other field (decoded by the loader, as before)
 *   RowSet          := row_keys(1) bytes* | row_ranges(2) RowRange*
 *   RowRange        := start_key_closed(1) | start_key_open(2) | end_key_open(3) | end_key_closed(4)
 *                      (bytes; two oneofs, start and end: last wins; an empty end key is no end)
 *
 * `rows` given more than once merges, as protobuf does (keys and ranges
 * appended). Unknown fields are skipped; malformed bytes throw (the method
 * table reports them as INVALID_ARGUMENT).
 */

export interface DecodedReadRowsRequest extends PReadRowsRequest {
  /** The bytes of the row set (`rows`, each time it was given; `rows` is then absent): decodeRowSet reads them. */
  readonly rowSetBytes?: readonly Uint8Array[];
}

const ROWS = (2 << 3) | WIRE_LEN;
const ROW_KEYS = (1 << 3) | WIRE_LEN;
const ROW_RANGES = (2 << 3) | WIRE_LEN;
const UNBOUNDED: RangeBound = Object.freeze({ kind: 'unbounded' });
/** decodeRowSet yields to other work after this long. */
const SLICE_MILLIS = 5;

let loaderDecode: ((bytes: Buffer) => unknown) | undefined;

/** Requests up to this size are decoded whole by the loader (as fast as before for point reads); the row set is still read by decodeRowSet. */
const WHOLE_BELOW = 64 * 1024;

/** The request, with the bytes of its row set (views of `buf`) for decodeRowSet; `rows`, if decoded, is not used. */
export function decodeReadRowsRequest(buf: Uint8Array): DecodedReadRowsRequest {
  loaderDecode ??= serviceDefinition('data')['ReadRows']!.requestDeserialize;
  if (buf.length < WHOLE_BELOW) {
    const whole = loaderDecode(
      Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength),
    ) as DecodedReadRowsRequest & {
      rowSetBytes?: readonly Uint8Array[];
    };
    if (whole.rows != null) whole.rowSetBytes = rowSetFields(buf, undefined);
    return whole;
  }
  const rest: Uint8Array[] = [];
  const rowSetBytes = rowSetFields(buf, rest);
  // One field besides the row set (the usual table_name): decoded where it lies, not copied.
  const only = rest.length === 1 ? rest[0]! : undefined;
  const restBytes = only !== undefined ? Buffer.from(only.buffer, only.byteOffset, only.byteLength) : Buffer.concat(rest);
  const others = loaderDecode(restBytes) as PReadRowsRequest;
  return rowSetBytes.length === 0 ? others : { ...others, rowSetBytes };
}

/** The payloads of the top-level `rows` fields of a ReadRowsRequest; the other fields go to `rest`, if given. */
function rowSetFields(buf: Uint8Array, rest: Uint8Array[] | undefined): Uint8Array[] {
  const r = createReader(buf);
  const rowSetBytes: Uint8Array[] = [];
  while (r.pos < r.len) {
    const fieldStart = r.pos;
    const k = readKey(r);
    if (k === ROWS) {
      const end = readLengthEnd(r);
      rowSetBytes.push(buf.subarray(r.pos, end));
      r.pos = end;
    } else {
      skipField(r, k);
      rest?.push(buf.subarray(fieldStart, r.pos));
    }
  }
  return rowSetBytes;
}

/**
 * The row set of a decoded request, read from its bytes: at once when small,
 * else in slices that yield to other clients every few milliseconds.
 * Malformed bytes fail with INVALID_ARGUMENT.
 */
export function decodeRowSet(parts: readonly Uint8Array[]): RowSet | Promise<RowSet> {
  let bytes = 0;
  for (const p of parts) bytes += p.length;
  const keys: ByteString[] = [];
  const ranges: RowRange[] = [];
  if (bytes < WHOLE_BELOW) {
    try {
      for (const part of parts) {
        const r = createReader(part);
        while (r.pos < r.len) readRowSetField(r, keys, ranges);
      }
    } catch (e) {
      throw malformed(e);
    }
    return { keys, ranges };
  }
  return decodeRowSetSliced(parts, keys, ranges);
}

async function decodeRowSetSliced(parts: readonly Uint8Array[], keys: ByteString[], ranges: RowRange[]): Promise<RowSet> {
  try {
    for (const part of parts) {
      const r = createReader(part);
      let sliceStart = performance.now();
      while (r.pos < r.len) {
        readRowSetField(r, keys, ranges);
        if ((keys.length + ranges.length) % 4096 === 0 && performance.now() - sliceStart >= SLICE_MILLIS) {
          await yieldToLoop();
          sliceStart = performance.now();
        }
      }
    }
  } catch (e) {
    throw malformed(e);
  }
  return { keys, ranges };
}

function readRowSetField(r: Reader, keys: ByteString[], ranges: RowRange[]): void {
  const k = readKey(r);
  if (k === ROW_KEYS) keys.push(readLatin1(r));
  else if (k === ROW_RANGES) ranges.push(readRange(r, readLengthEnd(r)));
  else skipField(r, k);
}

function malformed(e: unknown): Error {
  return invalidArgument(`Malformed ReadRows request: ${e instanceof Error ? e.message : String(e)}`);
}

function readRange(r: Reader, end: number): RowRange {
  let start = UNBOUNDED;
  let stop = UNBOUNDED;
  while (r.pos < end) {
    const k = readKey(r);
    const field = k >>> 3;
    if ((k & 7) !== WIRE_LEN || field < 1 || field > 4) {
      skipField(r, k);
      continue;
    }
    const key = readLatin1(r);
    if (field === 1) start = { kind: 'closed', key };
    else if (field === 2) start = { kind: 'open', key };
    else if (key.length === 0) stop = UNBOUNDED;
    else stop = { kind: field === 3 ? 'open' : 'closed', key };
  }
  if (r.pos !== end) throw new WireError('a RowRange overruns its length');
  return { start, end: stop };
}

function readLatin1(r: Reader): ByteString {
  const end = readLengthEnd(r);
  const s = latin1(r.buf, r.pos, end);
  r.pos = end;
  return s;
}
