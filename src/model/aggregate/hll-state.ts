import { invalidArgument } from '../errors.js';
import { WIRE_LENGTH_DELIMITED, WIRE_VARINT, WireReader, WireWriter, varint31Size } from './proto-wire.js';
import { type SparseEncoding, isValidSparseValue, sameSparseIndex, sparseEncoding } from './hll-encoding.js';

/**
 * The serialized state of an HLL++ aggregate cell: a ZetaSketch
 * `AggregatorStateProto` (proto2), the format Cloud Bigtable, BigQuery
 * (HLL_COUNT.*) and the ZetaSketch libraries exchange, so a state read from a
 * tabletop cell can be merged elsewhere and vice versa.
 *
 *   AggregatorStateProto
 *     1   type              varint   112 (HYPERLOGLOG_PLUS_UNIQUE)
 *     2   num_values        varint   values added, over all merges
 *     3   encoding_version  varint   2
 *     4   value_type        varint   DefaultOpsType id: 4 INT64, 11 BYTES_OR_UTF8_STRING
 *                                    (omitted when 0, unknown)
 *     112 hyperloglogplus_unique_state  bytes: HyperLogLogPlusUniqueStateProto
 *           2  sparse_size                      varint  number of sparse values (omitted when 0)
 *           3  precision_or_num_buckets         varint  p, 10..24 (15 by default)
 *           4  sparse_precision_or_num_buckets  varint  sp, p..25 (20 by default; 0 = no sparse form)
 *           5  data          bytes  normal form: 2^p registers, one byte each
 *           6  sparse_data   bytes  sparse form: the sorted, de-duplicated sparse values
 *                                   (see hll-encoding.ts), each written as the varint of
 *                                   its difference to the previous one (the first as is)
 *
 * Fields are written in the order above; a reader accepts any order and skips
 * unknown fields. Exactly one of data / sparse_data is written.
 *
 * Worked example: an int64 sketch (p 15, sp 20) after adding one value whose
 * sparse value is 0x000123 (not rho-encoded):
 *   08 70                 type 112
 *   10 01                 num_values 1
 *   18 02                 encoding_version 2
 *   20 04                 value_type 4 (INT64)
 *   82 07 0a              field 112, 10 bytes:
 *     10 01                 sparse_size 1
 *     18 0f                 precision 15
 *     20 14                 sparse precision 20
 *     32 02 a3 02           sparse_data: varint(0x123)
 */

export const AGGREGATOR_TYPE_HLL = 112;
export const HLL_ENCODING_VERSION = 2;
export const HLL_STATE_FIELD = 112;

export const MIN_PRECISION = 10;
export const MAX_PRECISION = 24;
export const MAX_SPARSE_PRECISION = 25;

/** DefaultOpsType ids of the value types an HLL++ sketch may declare. */
export const HLL_VALUE_TYPE = Object.freeze({ unknown: 0, int64: 4, uint64: 8, bytes: 11 });

export interface HllStateFields {
  readonly numValues: bigint;
  readonly valueType: number;
  readonly precision: number;
  /** 0 when the sketch has no sparse form. */
  readonly sparsePrecision: number;
  /** Normal registers (2^precision bytes), when the state is normal. */
  readonly data: Uint8Array | undefined;
  /** Sorted, de-duplicated sparse values, when the state is sparse. */
  readonly sparseValues: readonly number[] | undefined;
}

const WHAT = 'HLL++ state';

function bad(problem: string): never {
  throw invalidArgument(`Invalid ${WHAT}: ${problem}`);
}

/** Parses and checks a serialized state. Throws InvalidArgument when malformed. */
export function decodeHllState(bytes: Uint8Array): HllStateFields {
  const r = new WireReader(bytes, WHAT);
  let type = AGGREGATOR_TYPE_HLL;
  let numValues = 0n;
  let encodingVersion = 1;
  let valueType = 0;
  let hll: Uint8Array | undefined;
  while (!r.atEnd) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WIRE_VARINT) type = r.varint31();
    else if (field === 2 && wire === WIRE_VARINT) numValues = BigInt.asIntN(64, r.varint64());
    else if (field === 3 && wire === WIRE_VARINT) encodingVersion = r.varint31();
    else if (field === 4 && wire === WIRE_VARINT) valueType = r.varint31();
    else if (field === HLL_STATE_FIELD && wire === WIRE_LENGTH_DELIMITED) hll = r.bytes();
    else r.skip(wire);
  }
  if (type !== AGGREGATOR_TYPE_HLL) bad(`aggregator type ${type}, expected ${AGGREGATOR_TYPE_HLL} (HYPERLOGLOG_PLUS_UNIQUE)`);
  if (encodingVersion !== HLL_ENCODING_VERSION) bad(`encoding version ${encodingVersion}, expected ${HLL_ENCODING_VERSION}`);
  if (numValues < 0n) bad(`negative num_values ${numValues}`);

  let precision = 0;
  let sparsePrecision = 0;
  let data: Uint8Array | undefined;
  let sparseData: Uint8Array | undefined;
  if (hll !== undefined) {
    const h = new WireReader(hll, WHAT);
    while (!h.atEnd) {
      const [field, wire] = h.tag();
      if (field === 2 && wire === WIRE_VARINT)
        h.varint31(); // sparse_size: recomputed from the data
      else if (field === 3 && wire === WIRE_VARINT) precision = h.varint31();
      else if (field === 4 && wire === WIRE_VARINT) sparsePrecision = h.varint31();
      else if (field === 5 && wire === WIRE_LENGTH_DELIMITED) data = h.bytes();
      else if (field === 6 && wire === WIRE_LENGTH_DELIMITED) sparseData = h.bytes();
      else h.skip(wire);
    }
  }
  if (precision < MIN_PRECISION || precision > MAX_PRECISION) {
    bad(`precision ${precision} outside [${MIN_PRECISION}, ${MAX_PRECISION}]`);
  }
  if (sparsePrecision !== 0 && (sparsePrecision < precision || sparsePrecision > MAX_SPARSE_PRECISION)) {
    bad(`sparse precision ${sparsePrecision} outside [${precision}, ${MAX_SPARSE_PRECISION}]`);
  }
  if (data !== undefined) checkRegisters(data, precision);
  let sparseValues: number[] | undefined;
  if (sparseData !== undefined) {
    if (sparsePrecision === 0) bad('sparse data in a sketch without a sparse precision');
    sparseValues = decodeSparseData(sparseData, sparseEncoding(precision, sparsePrecision));
  }
  if (data === undefined && sparseValues === undefined && sparsePrecision !== 0) sparseValues = [];
  return { numValues, valueType, precision, sparsePrecision, data: data?.slice(), sparseValues };
}

function checkRegisters(data: Uint8Array, p: number): void {
  if (data.length !== 2 ** p) bad(`${data.length} bytes of register data, expected ${2 ** p} for precision ${p}`);
  const max = 64 - p + 1;
  for (let i = 0; i < data.length; i++) {
    if (data[i]! > max) bad(`register ${i} holds ${data[i]}, more than ${max}`);
  }
}

/** Decodes difference-encoded sparse values; sorts and de-duplicates leniently. */
function decodeSparseData(bytes: Uint8Array, e: SparseEncoding): number[] {
  const r = new WireReader(bytes, WHAT);
  const values: number[] = [];
  let last = 0;
  let sorted = true;
  while (!r.atEnd) {
    const v = last + r.varint31();
    if (!isValidSparseValue(e, v)) bad(`malformed sparse value ${v} for precisions (${e.p}, ${e.sp})`);
    if (values.length > 0 && v < last) sorted = false;
    values.push(v);
    last = v;
  }
  if (!sorted) values.sort((a, b) => a - b);
  return dedupeSorted(e, values);
}

/** Keeps, per sparse index, only the largest value (the one with the largest rho). */
export function dedupeSorted(e: SparseEncoding, sorted: readonly number[]): number[] {
  const out: number[] = [];
  for (const v of sorted) {
    const n = out.length;
    if (n > 0 && sameSparseIndex(e, out[n - 1]!, v)) out[n - 1] = v;
    else out.push(v);
  }
  return out;
}

/** Encoded size of sorted sparse values as difference varints. */
export function sparseDataSize(sorted: readonly number[]): number {
  let size = 0;
  let last = 0;
  for (const v of sorted) {
    size += varint31Size(v - last);
    last = v;
  }
  return size;
}

export function encodeHllState(s: HllStateFields): Uint8Array {
  const h = new WireWriter();
  if (s.sparseValues !== undefined && s.sparseValues.length > 0) h.varintField(2, s.sparseValues.length);
  if (s.precision !== 0) h.varintField(3, s.precision);
  if (s.sparsePrecision !== 0) h.varintField(4, s.sparsePrecision);
  if (s.data !== undefined) h.bytesField(5, s.data);
  if (s.sparseValues !== undefined) {
    const d = new WireWriter();
    let last = 0;
    for (const v of s.sparseValues) {
      d.varint(v - last);
      last = v;
    }
    h.bytesField(6, d.finish());
  }
  const w = new WireWriter().varintField(1, AGGREGATOR_TYPE_HLL).varintField(2, s.numValues).varintField(3, HLL_ENCODING_VERSION);
  if (s.valueType !== 0) w.varintField(4, s.valueType);
  return w.bytesField(HLL_STATE_FIELD, h.finish()).finish();
}
