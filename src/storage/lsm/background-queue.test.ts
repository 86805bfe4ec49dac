import { describe, expect, it } from 'vitest';
import { BackgroundQueue } from './background-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A queue whose compaction lane runs c1 until `compaction` is resolved; `log` records what ran. */
async function withRunningCompaction(): Promise<{
  q: BackgroundQueue;
  log: string[];
  compaction: { resolve: () => void };
  c1: Promise<void>;
}> {
  const q = new BackgroundQueue(() => undefined);
  const log: string[] = [];
  const compaction = deferred();
  const c1 = q.add('compaction', 's', async () => {
    log.push('c1 start');
    await compaction.promise;
    log.push('c1 end');
  });
  await tick();
  return { q, log, compaction, c1 };
}

describe('BackgroundQueue', () => {
  it('runs flushes while a compaction runs; an exclusive job waits for it and holds back later compactions', async () => {
    const { q, log, compaction, c1 } = await withRunningCompaction();
    await q.add('flush', 's', async () => void log.push('f1'));
    expect(log).toEqual(['c1 start', 'f1']);

    const x = q.add('exclusive', 's', async () => void log.push('x'));
    const c2 = q.add('compaction', 't', async () => void log.push('c2'));
    await tick();
    expect(log).toEqual(['c1 start', 'f1']);
    let idle = false;
    void q.idle().then(() => (idle = true));
    compaction.resolve();
    await Promise.all([c1, x, c2]);
    expect(log).toEqual(['c1 start', 'f1', 'c1 end', 'x', 'c2']);
    await tick();
    expect(idle).toBe(true);
  });

  it('while an exclusive job waits for a running compaction, flushes queued behind it run', async () => {
    const { q, log, compaction, c1 } = await withRunningCompaction();
    const x = q.add('exclusive', 's', async () => void log.push('x'));
    await tick();
    // Queued behind the waiting exclusive job, before and after it started waiting.
    const f1 = q.add('flush', 't', async () => void log.push('f1'));
    await tick();
    const f2 = q.add('flush', 's', async () => void log.push('f2'));
    for (let i = 0; i < 5; i++) await tick();
    expect(log).toEqual(['c1 start', 'f1', 'f2']);
    await Promise.all([f1, f2]);
    compaction.resolve();
    await Promise.all([c1, x]);
    expect(log).toEqual(['c1 start', 'f1', 'f2', 'c1 end', 'x']);
    await q.idle();
  });

  it('joins a queued compaction of the same store, reports a failure once and goes on', async () => {
    const errors: unknown[] = [];
    const q = new BackgroundQueue((e) => void errors.push(e));
    const block = deferred();
    let runs = 0;
    void q.add('compaction', 'a', () => block.promise);
    const b1 = q.add('compaction', 'b', async () => void runs++);
    const b2 = q.add('compaction', 'b', async () => void runs++);
    expect(b2).toBe(b1);
    const bad = q.add('flush', 'a', async () => {
      throw new Error('disk full');
    });
    await expect(bad).rejects.toThrow('disk full');
    await q.add('flush', 'a', async () => undefined);
    block.resolve();
    await b1;
    expect(runs).toBe(1);
    expect(errors).toHaveLength(1);
    await q.idle();
  });
});
