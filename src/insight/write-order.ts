import type { ByteString } from '../model/bytes.js';

/** Keys a WriteOrderSample keeps (the advisor's TableSample.writeOrder bound: advisor/types.ts WRITE_ORDER_SAMPLES). */
export const WRITE_ORDER_CAPACITY = 256;

/**
 * Recently written row keys in the order they arrived, for the schema
 * advisor (is the front of the key increasing with time?). The recorder
 * offers the first key of each write batch with the time it already read;
 * a key is kept only when at least `everyMillis` passed since the last one
 * kept, in a ring of `capacity` keys: one compare per batch, no allocation
 * once the ring is full.
 */
export class WriteOrderSample {
  private readonly ring: ByteString[] = [];
  /** Where the next key goes once the ring is full. */
  private next = 0;
  private lastMillis = -Infinity;

  constructor(
    private readonly everyMillis: number,
    private readonly capacity = WRITE_ORDER_CAPACITY,
  ) {}

  offer(key: ByteString, nowMillis: number): void {
    if (nowMillis - this.lastMillis < this.everyMillis) return;
    this.lastMillis = nowMillis;
    if (this.ring.length < this.capacity) {
      this.ring.push(key);
      return;
    }
    this.ring[this.next] = key;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The keys kept, oldest first. */
  keys(): ByteString[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}
