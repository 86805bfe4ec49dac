/**
 * How long background work (flushes, compactions, verification) may hold
 * the serving thread before it lets waiting requests run: one TimeShare per
 * engine, shared by all its background jobs.
 *
 * A request that arrives during a slice waits for the rest of it, so slices
 * should be short while requests are few: at least `backgroundSliceMillis`
 * (the shortest slice). But a background job resumes only once per turn of
 * the event loop, so under load, fixed short slices would starve it: flushes
 * and compactions would fall behind the writes and stall them. So a slice
 * grows with the foreground: it may last as long as the turn it waited for
 * took (times `ratio`), which gives background work about `ratio / (1 +
 * ratio)` of a busy thread and the shortest slice when it is not busy. A
 * slice never lasts more than `MAX_SLICE_MILLIS` (or the shortest slice, if
 * that is set longer).
 *
 * A shortest slice of 0 (tests only: serve takes 0.05 ms and up) makes
 * every look yield, however busy the thread: the finest interleaving of
 * background work with everything else, which the crash and metamorphic
 * suites want.
 *
 * Two jobs that resume in the same turn: the first takes its slice; the
 * second finds that no foreground work ran in between and gets the shortest
 * slice.
 */
export const MAX_SLICE_MILLIS = 8;
/** Background time per foreground millisecond on a busy thread (1: half the thread each). */
export const BACKGROUND_RATIO = 1;

export class TimeShare {
  /** Background work may run until then (performance.now()). */
  private sliceEnd = 0;
  /** When background work last gave the thread up. */
  private yieldedAt = 0;

  constructor(
    private readonly config: { readonly backgroundSliceMillis: number },
    private readonly ratio = BACKGROUND_RATIO,
    private readonly now: () => number = () => performance.now(),
    private readonly later: (run: () => void) => void = (run) => setImmediate(run),
  ) {}

  /**
   * Undefined while the slice lasts; else a promise to await, which resolves
   * once waiting requests have had their turn and a new slice has begun.
   * Callers await only then (`await` of a value still suspends for a
   * microtask, allocating ~0.5 KB per row: half the garbage of a flush).
   */
  maybeYield(): Promise<void> | undefined {
    const now = this.now();
    if (now < this.sliceEnd) return undefined;
    this.yieldedAt = now;
    return new Promise<void>((resolve) =>
      this.later(() => {
        this.begin();
        resolve();
      }),
    );
  }

  /** The length of the slice that begins at `now` after a turn of `foregroundMillis`. */
  sliceMillis(foregroundMillis: number): number {
    const shortest = this.config.backgroundSliceMillis;
    if (shortest === 0) return 0;
    return Math.max(shortest, Math.min(foregroundMillis * this.ratio, MAX_SLICE_MILLIS));
  }

  private begin(): void {
    const now = this.now();
    if (now < this.sliceEnd) return; // another job's slice is on: share it
    this.sliceEnd = now + this.sliceMillis(now - this.yieldedAt);
  }
}
