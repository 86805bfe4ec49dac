/**
 * A latency histogram with logarithmic buckets: 1% relative precision from
 * 1 µs to about 10^5 s, fixed memory, cheap to record and to merge across
 * processes (the bucket array travels as plain numbers over IPC).
 */

const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
const BUCKETS = Math.ceil(Math.log(1e11) / LOG_GROWTH) + 1;

export class Histogram {
  private readonly counts = new Float64Array(BUCKETS);
  private total = 0;
  private maxMicros = 0;

  /** Records one sample, in microseconds (values below 1 µs count as 1 µs). */
  record(micros: number): void {
    const v = micros < 1 ? 1 : micros;
    const i = Math.min(BUCKETS - 1, Math.floor(Math.log(v) / LOG_GROWTH));
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.total++;
    if (v > this.maxMicros) this.maxMicros = v;
  }

  get count(): number {
    return this.total;
  }

  get max(): number {
    return this.maxMicros;
  }

  /** The value (µs) at quantile q in [0, 1]: the upper edge of the bucket holding it, capped at the max seen. */
  quantile(q: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return Math.min(this.maxMicros, Math.pow(GROWTH, i + 1));
    }
    return this.maxMicros;
  }

  merge(other: Histogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i] = (this.counts[i] ?? 0) + (other.counts[i] ?? 0);
    this.total += other.total;
    this.maxMicros = Math.max(this.maxMicros, other.maxMicros);
  }

  /** A compact, JSON-safe form: [bucket, count] pairs of the non-empty buckets, and the max. */
  toJSON(): HistogramData {
    const buckets: [number, number][] = [];
    for (let i = 0; i < BUCKETS; i++) {
      const c = this.counts[i] ?? 0;
      if (c > 0) buckets.push([i, c]);
    }
    return { buckets, max: this.maxMicros };
  }

  static fromJSON(data: HistogramData): Histogram {
    const h = new Histogram();
    for (const [i, c] of data.buckets) {
      if (!Number.isInteger(i) || i < 0 || i >= BUCKETS) throw new Error(`histogram bucket ${i} out of range`);
      h.counts[i] = (h.counts[i] ?? 0) + c;
      h.total += c;
    }
    h.maxMicros = data.max;
    return h;
  }
}

export interface HistogramData {
  readonly buckets: readonly (readonly [number, number])[];
  readonly max: number;
}
