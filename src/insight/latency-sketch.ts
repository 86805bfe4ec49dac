/** Bins per doubling of latency: each bin spans a factor of 2^(1/4) ≈ 1.19 (quantiles within ~19%). */
const BINS_PER_OCTAVE = 4;
/** Bins up to 2^(BINS / BINS_PER_OCTAVE) µs = 2^36 µs ≈ 19 hours; larger latencies go to the last bin. */
const BINS = 144;

/**
 * Log-binned latency histogram of the requests of one bucket: p50/p99 to a
 * bin's width, the maximum exact. Recording costs one Math.log2.
 */
export class LatencySketch {
  private readonly bins = new Uint32Array(BINS);
  count = 0;
  /** Exact largest latency recorded (µs). */
  max = 0;

  add(micros: number): void {
    this.bins[binOf(micros)]!++;
    this.count++;
    if (micros > this.max) this.max = micros;
  }

  merge(other: LatencySketch): void {
    for (let i = 0; i < BINS; i++) this.bins[i]! += other.bins[i]!;
    this.count += other.count;
    if (other.max > this.max) this.max = other.max;
  }

  /** The latency (µs) below which a share `q` of the requests fall: the upper edge of its bin, at most the maximum; 0 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += this.bins[i]!;
      if (seen >= rank) return i === BINS - 1 ? this.max : Math.min(this.max, 2 ** ((i + 1) / BINS_PER_OCTAVE));
    }
    return this.max;
  }

  /** The non-empty bins as [bin, count] pairs, ascending (what history stores). */
  toSparse(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < BINS; i++) if (this.bins[i]! > 0) out.push([i, this.bins[i]!]);
    return out;
  }

  static fromSparse(pairs: readonly (readonly [number, number])[], max: number): LatencySketch {
    const s = new LatencySketch();
    for (const [bin, n] of pairs) {
      if (bin < 0 || bin >= BINS || !Number.isInteger(bin)) throw new RangeError(`latency bin ${bin} out of range`);
      s.bins[bin]! += n;
      s.count += n;
    }
    s.max = max;
    return s;
  }
}

function binOf(micros: number): number {
  if (!(micros > 1)) return 0;
  return Math.min(BINS - 1, Math.floor(Math.log2(micros) * BINS_PER_OCTAVE));
}
