/**
 * The response bytes a server holds in its own memory, across all its
 * connections: data queued in streams (waiting for the peer's windows or
 * the socket) and bytes handed to sockets that the kernel has not taken
 * yet. Past `limit`, a stream that cannot send what it is given right away
 * reports backpressure at once (its handler waits for drained()), whatever
 * its own high-water mark: readers that keep up are not slowed, and peers
 * that stop reading hold at most one message each beyond the limit.
 *
 * When the bytes held fall from a peak of at least `returnAfterBytes` to a
 * quarter of it (slow readers that went, a burst that drained),
 * `returnMemory` is called: the buffers are garbage by then, but nothing
 * else may make the process collect them (memory-return.ts).
 */
export class ResponseBudget {
  private held = 0;
  private peak = 0;

  constructor(
    readonly limit: number,
    private readonly returnAfterBytes = Infinity,
    private readonly returnMemory?: () => void,
  ) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  /** At or past the limit: streams with anything queued report backpressure. */
  get over(): boolean {
    return this.held >= this.limit;
  }

  /** `delta` more bytes held (negative: given back). */
  adjust(delta: number): void {
    const held = (this.held += delta);
    if (held > this.peak) this.peak = held;
    else if (delta < 0 && held <= this.peak / 4) {
      if (this.peak >= this.returnAfterBytes) this.returnMemory?.();
      this.peak = held;
    }
  }
}

/** A budget that never says over (a connection on its own, in tests). */
export function unlimitedBudget(): ResponseBudget {
  return new ResponseBudget(Infinity);
}
