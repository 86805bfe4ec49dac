import { describe, expect, it } from 'vitest';
import { MAX_SLICE_MILLIS, TimeShare } from './time-share.js';

/** A TimeShare on a clock the test moves, whose yields run when the test says the turn is over. */
function harness(shortest: number, ratio?: number) {
  let now = 1000;
  const waiting: (() => void)[] = [];
  const share = new TimeShare(
    { backgroundSliceMillis: shortest },
    ratio,
    () => now,
    (run) => waiting.push(run),
  );
  return {
    share,
    advance(ms: number) {
      now += ms;
    },
    /** The event loop's check phase: runs the yields queued before it. */
    endTurn() {
      for (const run of waiting.splice(0)) run();
    },
    /** Runs only the oldest queued yield (the others of the same check phase come after its job's slice). */
    resumeOldest() {
      waiting.shift()?.();
    },
    /** How long a job may run from now before maybeYield asks it to yield (0.01 ms steps). */
    sliceLeft(): number {
      let ran = 0;
      while (share.maybeYield() === undefined) {
        now += 0.01;
        ran += 0.01;
        if (ran > 100) throw new Error('never yields');
      }
      return Math.round(ran * 100) / 100;
    },
  };
}

describe('TimeShare', () => {
  it('gives the shortest slice when no foreground work ran between two slices', () => {
    const h = harness(0.5);
    expect(h.share.maybeYield()).toBeDefined(); // a job's first look yields: a slice begins after a turn
    h.endTurn();
    for (let i = 0; i < 3; i++) {
      expect(h.sliceLeft()).toBeCloseTo(0.5, 1);
      h.endTurn(); // resumes at once: the foreground had nothing to do
    }
  });

  it('lets a slice last as long as the foreground turn before it, times the ratio, up to the cap', () => {
    const h = harness(0.5);
    h.share.maybeYield();
    h.endTurn();
    expect(h.sliceLeft()).toBeCloseTo(0.5, 1);
    h.advance(3); // requests ran for 3 ms
    h.endTurn();
    expect(h.sliceLeft()).toBeCloseTo(3, 1);
    h.advance(50);
    h.endTurn();
    expect(h.sliceLeft()).toBeCloseTo(MAX_SLICE_MILLIS, 1);
    const third = harness(0.5, 0.5);
    third.share.maybeYield();
    third.advance(4);
    third.endTurn();
    expect(third.sliceLeft()).toBeCloseTo(2, 1);
  });

  it('never cuts slices below the shortest, even when that is above the cap', () => {
    const h = harness(20);
    h.share.maybeYield();
    h.advance(1);
    h.endTurn();
    expect(h.sliceLeft()).toBeCloseTo(20, 1);
  });

  it('gives a second job that resumes in the same turn only the shortest slice', () => {
    const h = harness(1);
    expect(h.share.maybeYield()).toBeDefined(); // job A
    h.advance(0.2);
    expect(h.share.maybeYield()).toBeDefined(); // job B, after it waited for I/O, say
    h.advance(6); // a turn of requests
    h.resumeOldest(); // A resumes first and runs its slice (its continuation is a microtask)
    expect(h.sliceLeft()).toBeCloseTo(6, 1);
    h.resumeOldest(); // then B, in the same check phase: no request ran in between
    expect(h.sliceLeft()).toBeCloseTo(1, 1);
  });

  it("yields at every look with a shortest slice of 0, however long the turns (the tests' finest interleaving)", () => {
    const h = harness(0);
    h.share.maybeYield();
    h.advance(5);
    h.endTurn();
    expect(h.share.maybeYield()).toBeDefined();
    h.advance(5);
    h.endTurn();
    expect(h.share.maybeYield()).toBeDefined();
  });

  it('resolves a yield only after the turn', async () => {
    const h = harness(1);
    const pause = h.share.maybeYield();
    let resumed = false;
    void pause?.then(() => (resumed = true));
    await Promise.resolve();
    expect(resumed).toBe(false);
    h.endTurn();
    await pause;
    expect(resumed).toBe(true);
  });
});
