import { describe, expect, it } from 'vitest';
import { GcSweeper } from './gc-sweep.js';

describe('GcSweeper', () => {
  it('sends failures of timed sweeps to onError and keeps sweeping', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const sweeper = new GcSweeper(
      5,
      async () => {
        runs++;
        throw new Error(`sweep ${runs} failed`);
      },
      (e) => errors.push(e),
    );
    sweeper.start();
    const deadline = Date.now() + 2000;
    while (errors.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await sweeper.stop();
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(String(errors[0])).toMatch(/sweep 1 failed/);
  });

  it('runOnce rejects with the failure; concurrent calls join one sweep; stop waits for it', async () => {
    let release!: () => void;
    let runs = 0;
    const sweeper = new GcSweeper(
      0,
      () => {
        runs++;
        return new Promise<void>((resolve) => (release = resolve));
      },
      () => {
        throw new Error('not expected');
      },
    );
    const a = sweeper.runOnce();
    const b = sweeper.runOnce();
    expect(a).toBe(b);
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(runs).toBe(1);
    const failing = new GcSweeper(
      0,
      async () => Promise.reject(new Error('boom')),
      () => undefined,
    );
    await expect(failing.runOnce()).rejects.toThrow('boom');
  });
});
