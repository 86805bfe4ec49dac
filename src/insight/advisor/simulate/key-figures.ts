import type { ByteString } from '../../../model/bytes.js';

/** Keys (sampled, possibly rewritten) with what each stands for and the ops on it in each round. */
export interface ReplayInput {
  /** Ascending, distinct. */
  readonly keys: readonly ByteString[];
  /** Stored bytes each key stands for. */
  readonly bytes: readonly number[];
  /** Reads on keys[i] in each round (reads are spread evenly over time). */
  readonly reads: readonly number[];
  /** writes[r][i]: the writes on keys[i] in round r. */
  readonly writes: readonly (readonly number[])[];
  /** The round in which keys[i] is first stored (its bytes count from then); -1: before the first round. */
  readonly born: readonly number[];
}

/**
 * A ReplayInput's figures over key ranges keys[lo, hi) in O(1) (prefix
 * sums): stored bytes in a round (`undefined`: before the first), reads,
 * writes and ops in a round; and what the stores and load meters would
 * sample of a range.
 */
export class KeyFigures {
  readonly rounds: number;
  /** Prefix sums of stored bytes before the first round (index 0) and in each round r (index r + 1). */
  private readonly bytesSum: Float64Array[];
  private readonly readsSum: Float64Array;
  private readonly writesSum: Float64Array[];

  constructor(readonly input: ReplayInput) {
    const { bytes, reads, writes, born } = input;
    this.rounds = writes.length;
    this.bytesSum = Array.from({ length: this.rounds + 1 }, (_, r) => prefix(bytes.map((b, i) => (born[i]! < r ? b : 0))));
    this.readsSum = prefix(reads);
    this.writesSum = writes.map(prefix);
  }

  get keys(): readonly ByteString[] {
    return this.input.keys;
  }

  bytes(lo: number, hi: number, r: number | undefined): number {
    const sum = this.bytesSum[r === undefined ? 0 : r + 1]!;
    return sum[hi]! - sum[lo]!;
  }

  reads(lo: number, hi: number): number {
    return this.readsSum[hi]! - this.readsSum[lo]!;
  }

  writes(lo: number, hi: number, r: number): number {
    return this.writesSum[r]![hi]! - this.writesSum[r]![lo]!;
  }

  ops(lo: number, hi: number, r: number): number {
    return this.reads(lo, hi) + this.writes(lo, hi, r);
  }

  /** The keys a store samples every `step` bytes (the memory store's sampleKeys), keys without bytes left out. */
  byteSamples(lo: number, hi: number, r: number | undefined, step: number): { key: ByteString }[] {
    const out: { key: ByteString }[] = [];
    let offset = 0;
    let last = 0;
    for (let i = lo; i < hi; i++) {
      const b = this.bytes(i, i + 1, r);
      if (b === 0) continue;
      if (offset - last >= step) {
        out.push({ key: this.keys[i]! });
        last = offset;
      }
      offset += b;
    }
    return out;
  }

  /** `n` request keys as a load meter's reservoir would hold them after round r: the keys in proportion to their ops. */
  requestSamples(lo: number, hi: number, r: number, n: number): ByteString[] {
    const total = this.ops(lo, hi, r);
    const out: ByteString[] = [];
    let i = lo;
    let below = 0;
    for (let j = 0; j < n; j++) {
      const at = ((j + 0.5) * total) / n;
      while (i < hi - 1 && below + this.ops(i, i + 1, r) <= at) {
        below += this.ops(i, i + 1, r);
        i++;
      }
      out.push(this.keys[i]!);
    }
    return out;
  }

  /** Share of round r's ops taken by the busiest single key. */
  maxKeyShare(r: number): number {
    const total = this.ops(0, this.keys.length, r);
    if (!(total > 0)) return 0;
    let top = 0;
    for (let i = 0; i < this.keys.length; i++) top = Math.max(top, this.ops(i, i + 1, r));
    return top / total;
  }
}

function prefix(values: readonly number[]): Float64Array {
  const p = new Float64Array(values.length + 1);
  values.forEach((v, i) => (p[i + 1] = p[i]! + v));
  return p;
}
