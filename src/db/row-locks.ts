import type { ByteString } from '../model/bytes.js';

/**
 * Row locks of one table: a write, CheckAndMutateRow or ReadModifyWriteRow
 * holds the lock of its row from its read to its write, so operations on one
 * row are serialised (MutateRows takes none while no row is locked and it
 * need not wait: it then runs without yielding; see write-path.ts).
 * Uncontended, a lock is one Map insert and delete, with no promise. Waiters
 * are served first come, first served.
 *
 * Deadlock freedom: a request that needs several rows takes them with
 * `acquireAll`, which either gets them all without waiting or, on
 * contention, releases and takes them one by one in key order.
 */
export class RowLocks {
  /** Locked keys, each with its queue of waiters (NO_WAITERS, shared, while nobody waits). */
  private readonly held = new Map<ByteString, (() => void)[]>();

  /** Takes the lock when it is free. */
  tryAcquire(key: ByteString): boolean {
    if (this.held.has(key)) return false;
    this.held.set(key, NO_WAITERS);
    return true;
  }

  /** Takes the lock: now (undefined) when it is free, else when the promise resolves. */
  acquire(key: ByteString): Promise<void> | undefined {
    const waiters = this.held.get(key);
    if (waiters === undefined) {
      this.held.set(key, NO_WAITERS);
      return undefined;
    }
    return new Promise<void>((resolve) => {
      if (waiters === NO_WAITERS) this.held.set(key, [resolve]);
      else waiters.push(resolve);
    });
  }

  /** Releases the lock, handing it to the first waiter if any. */
  release(key: ByteString): void {
    const waiters = this.held.get(key);
    if (waiters === undefined) throw new Error(`row lock released twice: ${JSON.stringify(key)}`);
    const next = waiters === NO_WAITERS ? undefined : waiters.shift();
    if (next === undefined) this.held.delete(key);
    else next();
  }

  /** Takes the locks of all `keys` (distinct). */
  acquireAll(keys: readonly ByteString[]): Promise<void> | undefined {
    for (let i = 0; i < keys.length; i++) {
      if (!this.tryAcquire(keys[i]!)) {
        for (let j = 0; j < i; j++) this.release(keys[j]!);
        return this.acquireInOrder([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      }
    }
    return undefined;
  }

  releaseAll(keys: readonly ByteString[]): void {
    for (const key of keys) this.release(key);
  }

  /** Number of rows locked right now. */
  get lockedRows(): number {
    return this.held.size;
  }

  private async acquireInOrder(sorted: readonly ByteString[]): Promise<void> {
    for (const key of sorted) {
      const wait = this.acquire(key);
      if (wait !== undefined) await wait;
    }
  }
}

/** The waiter queue of a lock nobody waits for: shared, never written (an uncontended lock allocates nothing). */
const NO_WAITERS: (() => void)[] = [];
