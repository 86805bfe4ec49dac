import type { ByteString } from '../model/bytes.js';

/**
 * The load on one tablet over the recent past: requests, rows and bytes read
 * and written, and the time spent serving them, in one-second buckets (a ring
 * of the last BUCKETS seconds), plus a reservoir sample of the row keys that
 * requests touched, for choosing a load-based split key (as TiKV's
 * load-base-split does).
 *
 * Time comes from the caller (microseconds), so tests drive it.
 */
export const BUCKETS = 120;
export const RESERVOIR_SIZE = 256;

export interface LoadRates {
  readonly requestsPerSec: number;
  readonly rowsReadPerSec: number;
  readonly rowsWrittenPerSec: number;
  readonly bytesReadPerSec: number;
  readonly bytesWrittenPerSec: number;
  /** Serving time per second (µs/s): the share of a core this tablet used, times 1e6. */
  readonly cpuMicrosPerSec: number;
}

export interface LoadTotals {
  requests: number;
  rowsRead: number;
  rowsWritten: number;
  bytesRead: number;
  bytesWritten: number;
  cpuMicros: number;
}

const zero = (): LoadTotals => ({ requests: 0, rowsRead: 0, rowsWritten: 0, bytesRead: 0, bytesWritten: 0, cpuMicros: 0 });

export class LoadMeter {
  private readonly buckets: LoadTotals[] = Array.from({ length: BUCKETS }, zero);
  /** The second each bucket holds (absolute), or -1. */
  private readonly seconds = new Int32Array(BUCKETS).fill(-1);
  /** All-time totals. */
  readonly total: LoadTotals = zero();
  private reservoir: ByteString[] = [];
  private seen = 0;
  private reservoirSecond = -1;

  constructor(private readonly random: () => number = Math.random) {}

  /** Records one request's work on this tablet at time `nowMicros`. `key` is a key it touched. */
  record(nowMicros: number, work: Partial<LoadTotals>, key?: ByteString): void {
    const b = this.bucket(nowMicros);
    for (const t of [b, this.total]) {
      t.requests += work.requests ?? 1;
      t.rowsRead += work.rowsRead ?? 0;
      t.rowsWritten += work.rowsWritten ?? 0;
      t.bytesRead += work.bytesRead ?? 0;
      t.bytesWritten += work.bytesWritten ?? 0;
      t.cpuMicros += work.cpuMicros ?? 0;
    }
    if (key !== undefined) this.sample(nowMicros, key);
  }

  /** Adds the first `count` request keys to the load-split sample (the work itself is recorded separately). */
  sampleKeys(nowMicros: number, keys: readonly ByteString[], count = keys.length): void {
    for (let i = 0; i < count; i++) this.sample(nowMicros, keys[i]!);
  }

  /** Average rates over the `windowSeconds` seconds before `nowMicros` (the current, partial second excluded). */
  rates(nowMicros: number, windowSeconds: number): LoadRates {
    const now = Math.floor(nowMicros / 1e6);
    const sum = zero();
    const w = Math.max(1, Math.min(windowSeconds, BUCKETS - 1));
    for (let s = now - w; s < now; s++) {
      const i = ((s % BUCKETS) + BUCKETS) % BUCKETS;
      if (this.seconds[i] !== s) continue;
      const b = this.buckets[i]!;
      sum.requests += b.requests;
      sum.rowsRead += b.rowsRead;
      sum.rowsWritten += b.rowsWritten;
      sum.bytesRead += b.bytesRead;
      sum.bytesWritten += b.bytesWritten;
      sum.cpuMicros += b.cpuMicros;
    }
    return {
      requestsPerSec: sum.requests / w,
      rowsReadPerSec: sum.rowsRead / w,
      rowsWrittenPerSec: sum.rowsWritten / w,
      bytesReadPerSec: sum.bytesRead / w,
      bytesWrittenPerSec: sum.bytesWritten / w,
      cpuMicrosPerSec: sum.cpuMicros / w,
    };
  }

  /** Per-second values of one measure for each of the last `seconds` whole seconds, oldest first. */
  series(nowMicros: number, seconds: number, measure: keyof LoadTotals): number[] {
    const now = Math.floor(nowMicros / 1e6);
    const out: number[] = [];
    for (let s = now - seconds; s < now; s++) {
      const i = ((s % BUCKETS) + BUCKETS) % BUCKETS;
      out.push(this.seconds[i] === s ? this.buckets[i]![measure] : 0);
    }
    return out;
  }

  /** The sampled request keys of the recent past (uniform over the requests since the sample was last reset). */
  sampledKeys(): readonly ByteString[] {
    return this.reservoir;
  }

  /** Adds the other meter's history into this one (a merge of two tablets). */
  absorb(other: LoadMeter): void {
    for (let i = 0; i < BUCKETS; i++) {
      const s = other.seconds[i]!;
      if (s < 0) continue;
      if (this.seconds[i] !== s) {
        this.seconds[i] = s;
        this.buckets[i] = zero();
      }
      addInto(this.buckets[i]!, other.buckets[i]!);
    }
    addInto(this.total, other.total);
  }

  private bucket(nowMicros: number): LoadTotals {
    const s = Math.floor(nowMicros / 1e6);
    const i = ((s % BUCKETS) + BUCKETS) % BUCKETS;
    if (this.seconds[i] !== s) {
      this.seconds[i] = s;
      this.buckets[i] = zero();
    }
    return this.buckets[i]!;
  }

  /** Reservoir sampling (Algorithm R), restarted every 30 s so the sample follows the current traffic. */
  private sample(nowMicros: number, key: ByteString): void {
    const s = Math.floor(nowMicros / 30e6);
    if (s !== this.reservoirSecond) {
      this.reservoirSecond = s;
      if (this.seen > RESERVOIR_SIZE) {
        this.reservoir = [];
        this.seen = 0;
      }
    }
    this.seen++;
    if (this.reservoir.length < RESERVOIR_SIZE) this.reservoir.push(key);
    else {
      const j = Math.floor(this.random() * this.seen);
      if (j < RESERVOIR_SIZE) this.reservoir[j] = key;
    }
  }
}

function addInto(a: LoadTotals, b: LoadTotals): void {
  a.requests += b.requests;
  a.rowsRead += b.rowsRead;
  a.rowsWritten += b.rowsWritten;
  a.bytesRead += b.bytesRead;
  a.bytesWritten += b.bytesWritten;
  a.cpuMicros += b.cpuMicros;
}
