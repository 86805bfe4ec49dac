import { describe, expect, it } from 'vitest';
import { RowLocks } from './row-locks.js';

describe('RowLocks', () => {
  it('takes a free lock synchronously and frees it on release', () => {
    const locks = new RowLocks();
    expect(locks.acquire('a')).toBeUndefined();
    expect(locks.tryAcquire('a')).toBe(false);
    expect(locks.tryAcquire('b')).toBe(true);
    locks.release('a');
    locks.release('b');
    expect(locks.lockedRows).toBe(0);
  });

  it('serves waiters in arrival order', async () => {
    const locks = new RowLocks();
    const order: string[] = [];
    locks.acquire('k');
    const w1 = locks.acquire('k')!.then(() => order.push('first'));
    const w2 = locks.acquire('k')!.then(() => order.push('second'));
    locks.release('k');
    await w1;
    locks.release('k');
    await w2;
    locks.release('k');
    expect(order).toEqual(['first', 'second']);
    expect(locks.lockedRows).toBe(0);
  });

  it('a double release is a bug and throws', () => {
    const locks = new RowLocks();
    expect(() => locks.release('x')).toThrow(/released twice/);
  });

  it('acquireAll takes every lock at once when they are free', () => {
    const locks = new RowLocks();
    expect(locks.acquireAll(['b', 'a', 'c'])).toBeUndefined();
    expect(locks.lockedRows).toBe(3);
    locks.releaseAll(['a', 'b', 'c']);
    expect(locks.lockedRows).toBe(0);
  });

  it('acquireAll in opposite orders cannot deadlock', async () => {
    const locks = new RowLocks();
    locks.acquire('a');
    // Holds nothing while it waits, then takes a and b in key order.
    const first = locks.acquireAll(['b', 'a']);
    expect(first).toBeInstanceOf(Promise);
    expect(locks.lockedRows).toBe(1);
    const second = locks.acquireAll(['a', 'b']);
    locks.release('a');
    await first;
    locks.releaseAll(['a', 'b']);
    await second;
    locks.releaseAll(['a', 'b']);
    expect(locks.lockedRows).toBe(0);
  });
});
