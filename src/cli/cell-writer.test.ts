import { describe, expect, it } from 'vitest';
import { type PacingClock, RateLimiter } from './cell-writer.js';

/** A clock that moves only when something sleeps on it, recording the sleeps. */
function fakeClock(): PacingClock & { sleeps: number[] } {
  let now = 1000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(Math.round(ms));
      now += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('holds rows a second to the limit, counting from its start', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ maxRowsPerSecond: 500 }, clock);
    await limiter.take(500, 0);
    await limiter.take(500, 0);
    await limiter.take(250, 0);
    expect(clock.sleeps).toEqual([1000, 1000, 500]);
  });

  it('holds MiB a second to the limit, and the stricter limit wins', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ maxRowsPerSecond: 1_000_000, maxMibPerSecond: 2 }, clock);
    await limiter.take(10, 4 * 1048576);
    expect(clock.sleeps).toEqual([2000]);
  });

  it('does not wait under the limit, nor without one', async () => {
    const clock = fakeClock();
    await new RateLimiter({}, clock).take(1e9, 1e12);
    const limited = new RateLimiter({ maxRowsPerSecond: 100 }, clock);
    clock.sleeps.length = 0;
    await clock.sleep(5000);
    await limited.take(100, 0);
    expect(clock.sleeps).toEqual([5000]);
  });
});
