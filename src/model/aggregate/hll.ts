import { invalidArgument } from '../errors.js';
import { fingerprint2011 } from './fingerprint.js';
import {
  type SparseEncoding,
  decodeNormalIndex,
  decodeNormalRho,
  downgradeRho,
  downgradeSparse,
  encodeHash,
  normalIndexOf,
  rhoAfter,
  sparseEncoding,
} from './hll-encoding.js';
import { estimateFromRegisters, linearCounting } from './hll-estimate.js';
import {
  HLL_VALUE_TYPE,
  MAX_PRECISION,
  MAX_SPARSE_PRECISION,
  MIN_PRECISION,
  decodeHllState,
  dedupeSorted,
  encodeHllState,
  sparseDataSize,
} from './hll-state.js';
import { type U64, int64LittleEndian } from './u64.js';

/**
 * A HyperLogLog++ sketch (Heule, Nunkesser, Hall: "HyperLogLog in Practice",
 * EDBT 2013) compatible with ZetaSketch: same hash (Fingerprint2011), same
 * sparse and normal encodings, same serialized state (hll-state.ts), same
 * rule for leaving the sparse form. Small sketches keep a sorted list of
 * sparse values at precision sp (20 by default); once that list would take
 * more than 3/4 of the 2^p bytes of the normal form, the sketch switches to
 * 2^p one-byte registers (p = 15 by default, about 0.6% standard error).
 *
 * Not thread-safe; the model is single-threaded anyway.
 */
export interface HllSketch {
  readonly precision: number;
  /** 0 when the sketch has no sparse form. */
  readonly sparsePrecision: number;
  /** Values added over the sketch's life, merges included. */
  readonly numValues: bigint;
  /** DefaultOpsType id (HLL_VALUE_TYPE). */
  readonly valueType: number;
  readonly isSparse: boolean;
  /** Adds a byte-string value (hashed as is). */
  addBytes(value: Uint8Array): void;
  /** Adds an int64 value (hashed as its 8 little-endian bytes, as ZetaSketch does). */
  addInt64(value: bigint): void;
  /** Merges another sketch into this one; `other` is not changed. Precisions drop to the lower of the two. */
  merge(other: HllSketch): void;
  /** Estimated number of distinct values. */
  estimate(): number;
  serialize(): Uint8Array;
}

export const DEFAULT_PRECISION = 15;
export const DEFAULT_SPARSE_PRECISION = 20;

/** Sparse data may use at most this fraction of the normal form's 2^p bytes. */
const MAX_SPARSE_DATA_FRACTION = 0.75;
/** Unsorted pending values are folded into the sorted list beyond this fraction of 2^p. */
const MAX_BUFFER_FRACTION = 1 - MAX_SPARSE_DATA_FRACTION;

export interface HllOptions {
  readonly precision?: number;
  readonly sparsePrecision?: number;
}

/** A new, empty sketch for values of `valueType` (HLL_VALUE_TYPE). */
export function createHll(valueType: number, options: HllOptions = {}): HllSketch {
  const p = options.precision ?? DEFAULT_PRECISION;
  const sp = options.sparsePrecision ?? DEFAULT_SPARSE_PRECISION;
  if (!Number.isInteger(p) || p < MIN_PRECISION || p > MAX_PRECISION) {
    throw invalidArgument(`HLL++ precision must be in [${MIN_PRECISION}, ${MAX_PRECISION}], got ${p}`);
  }
  if (sp !== 0 && (!Number.isInteger(sp) || sp < p || sp > MAX_SPARSE_PRECISION)) {
    throw invalidArgument(`HLL++ sparse precision must be 0 or in [${p}, ${MAX_SPARSE_PRECISION}], got ${sp}`);
  }
  return new Sketch(valueType, 0n, p, sp, sp === 0 ? undefined : [], undefined);
}

/** Parses a serialized state (throws InvalidArgument when it is not a valid HLL++ state). */
export function parseHll(state: Uint8Array): HllSketch {
  const s = decodeHllState(state);
  const sketch = new Sketch(s.valueType, s.numValues, s.precision, s.sparsePrecision, s.sparseValues?.slice(), s.data);
  sketch.normalizeIfOversized();
  return sketch;
}

/** Whether sketches declaring these value types may be merged (unknown merges with anything). */
export function compatibleValueTypes(a: number, b: number): boolean {
  if (a === HLL_VALUE_TYPE.unknown || b === HLL_VALUE_TYPE.unknown || a === b) return true;
  // int64 and uint64 values hash identically (8 little-endian bytes).
  const integer = (t: number): boolean => t === HLL_VALUE_TYPE.int64 || t === HLL_VALUE_TYPE.uint64;
  return integer(a) && integer(b);
}

class Sketch implements HllSketch {
  private encoding: SparseEncoding | undefined;
  /** Pending sparse values, unsorted, possibly duplicated. */
  private buffer: number[] = [];
  private sparseBytes: number;

  constructor(
    public valueType: number,
    public numValues: bigint,
    public precision: number,
    public sparsePrecision: number,
    /** Sorted, de-duplicated sparse values; undefined once normal. */
    private sparse: number[] | undefined,
    /** Normal registers; undefined while sparse, or all-zero. */
    private registers: Uint8Array | undefined,
  ) {
    this.encoding = sparsePrecision === 0 ? undefined : sparseEncoding(precision, sparsePrecision);
    if (registers !== undefined && sparse !== undefined) {
      // A state carrying both forms is normal; fold the sparse values in.
      this.sparse = undefined;
      this.addSparseToRegisters(sparse, this.encoding!);
    }
    this.sparseBytes = this.sparse === undefined ? 0 : sparseDataSize(this.sparse);
  }

  get isSparse(): boolean {
    return this.sparse !== undefined;
  }

  private get maxSparseBytes(): number {
    return Math.floor(2 ** this.precision * MAX_SPARSE_DATA_FRACTION);
  }

  addBytes(value: Uint8Array): void {
    this.addHash(fingerprint2011(value));
    this.numValues++;
  }

  addInt64(value: bigint): void {
    this.addHash(fingerprint2011(int64LittleEndian(value)));
    this.numValues++;
  }

  private addHash(hash: U64): void {
    if (this.sparse !== undefined) {
      this.buffer.push(encodeHash(this.encoding!, hash));
      if (this.buffer.length > 2 ** this.precision * MAX_BUFFER_FRACTION) this.flush();
      return;
    }
    const regs = this.ensureRegisters();
    const i = normalIndexOf(hash, this.precision);
    const rho = rhoAfter(hash, this.precision);
    if (regs[i]! < rho) regs[i] = rho;
  }

  /** Folds the pending buffer into the sorted list; leaves the sparse form when it grew too large. */
  private flush(): void {
    if (this.sparse === undefined || this.buffer.length === 0) return;
    const e = this.encoding!;
    const pending = this.buffer.sort((a, b) => a - b);
    this.buffer = [];
    const merged: number[] = new Array<number>(this.sparse.length + pending.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.sparse.length || j < pending.length) {
      if (j >= pending.length || (i < this.sparse.length && this.sparse[i]! <= pending[j]!)) merged[k++] = this.sparse[i++]!;
      else merged[k++] = pending[j++]!;
    }
    this.sparse = dedupeSorted(e, merged);
    this.sparseBytes = sparseDataSize(this.sparse);
    this.normalizeIfOversized();
  }

  /** Switches to the normal form when the sparse data outgrew its budget. */
  normalizeIfOversized(): void {
    if (this.sparse !== undefined && this.sparseBytes > this.maxSparseBytes) this.normalize();
  }

  private normalize(): void {
    if (this.sparse === undefined) return;
    const values = this.sparse.concat(this.buffer);
    this.sparse = undefined;
    this.buffer = [];
    this.sparseBytes = 0;
    this.ensureRegisters();
    this.addSparseToRegisters(values, this.encoding!);
  }

  private ensureRegisters(): Uint8Array {
    this.registers ??= new Uint8Array(2 ** this.precision);
    return this.registers;
  }

  /** Adds sparse values of encoding `from` (precisions >= ours) to the registers. */
  private addSparseToRegisters(values: readonly number[], from: SparseEncoding): void {
    const regs = this.ensureRegisters();
    const shift = from.p - this.precision;
    for (const v of values) {
      let index = decodeNormalIndex(from, v);
      let rho = decodeNormalRho(from, v);
      if (shift > 0) {
        rho = downgradeRho(index, rho, from.p, this.precision);
        index >>>= shift;
      }
      if (regs[index]! < rho) regs[index] = rho;
    }
  }

  /** Lowers this sketch's precisions to (p, sp); sp 0 means "no sparse form". */
  private downgrade(p: number, sp: number): void {
    if (p === this.precision && sp === this.sparsePrecision) return;
    if (this.sparse !== undefined) {
      if (sp === 0) {
        this.normalize();
      } else {
        const from = this.encoding!;
        const to = sparseEncoding(p, sp);
        const values = this.sparse.concat(this.buffer).map((v) => downgradeSparse(from, to, v));
        this.precision = p;
        this.sparsePrecision = sp;
        this.encoding = to;
        this.sparse = [];
        this.buffer = values;
        this.flush();
        return;
      }
    }
    if (this.registers !== undefined && p < this.precision) {
      const old = this.registers;
      const shift = this.precision - p;
      const regs = new Uint8Array(2 ** p);
      for (let i = 0; i < old.length; i++) {
        const rho = old[i]!;
        if (rho === 0) continue;
        const j = i >>> shift;
        const r = downgradeRho(i, rho, this.precision, p);
        if (regs[j]! < r) regs[j] = r;
      }
      this.registers = regs;
    }
    this.precision = p;
    this.sparsePrecision = sp;
    this.encoding = sp === 0 ? undefined : sparseEncoding(p, sp);
  }

  merge(other: HllSketch): void {
    if (!(other instanceof Sketch)) throw new TypeError('merge() accepts sketches made by createHll or parseHll');
    if (!compatibleValueTypes(this.valueType, other.valueType)) {
      throw invalidArgument(`HLL++ sketches of value types ${this.valueType} and ${other.valueType} cannot be merged`);
    }
    if (this.valueType === HLL_VALUE_TYPE.unknown) this.valueType = other.valueType;
    const p = Math.min(this.precision, other.precision);
    const sp = this.sparsePrecision === 0 || other.sparsePrecision === 0 ? 0 : Math.min(this.sparsePrecision, other.sparsePrecision);
    this.downgrade(p, sp);
    other.flush();
    if (this.sparse !== undefined && other.sparse !== undefined) {
      const from = other.encoding!;
      const to = this.encoding!;
      for (const v of other.sparse) this.buffer.push(downgradeSparse(from, to, v));
      this.flush();
    } else {
      this.normalize();
      if (other.sparse !== undefined) this.addSparseToRegisters(other.sparse, other.encoding!);
      else if (other.registers !== undefined) this.mergeRegisters(other.registers, other.precision);
    }
    this.numValues += other.numValues;
  }

  private mergeRegisters(source: Uint8Array, sourceP: number): void {
    const regs = this.ensureRegisters();
    const shift = sourceP - this.precision;
    for (let i = 0; i < source.length; i++) {
      const rho = source[i]!;
      if (rho === 0) continue;
      const j = i >>> shift;
      const r = shift === 0 ? rho : downgradeRho(i, rho, sourceP, this.precision);
      if (regs[j]! < r) regs[j] = r;
    }
  }

  estimate(): number {
    this.flush();
    if (this.sparse !== undefined) return linearCounting(2 ** this.sparsePrecision, this.sparse.length);
    if (this.registers === undefined) return 0;
    return estimateFromRegisters(this.registers, this.precision);
  }

  serialize(): Uint8Array {
    this.flush();
    return encodeHllState({
      numValues: this.numValues,
      valueType: this.valueType,
      precision: this.precision,
      sparsePrecision: this.sparsePrecision,
      data: this.sparse === undefined ? this.registers : undefined,
      sparseValues: this.sparse,
    });
  }
}
