/**
 * Keeps writes out of a table while a schema change that drops data (or the
 * table's deletion) runs: writes enter shared, the admin operation runs
 * exclusive once the writes in flight have left. New writes wait while an
 * exclusive operation is waiting or running, so admin operations are not
 * starved. Entering shared with nothing exclusive around costs a counter.
 */
export class WriteGate {
  private shared = 0;
  /** Exclusive operations, in arrival order; the head runs once `shared` is 0. */
  private readonly exclusiveQueue: (() => void)[] = [];
  private exclusiveRunning = false;
  private readonly sharedWaiters: (() => void)[] = [];

  /** Enters shared: now (undefined) or once the promise resolves. Always pair with exitShared. */
  enterShared(): Promise<void> | undefined {
    if (!this.exclusiveRunning && this.exclusiveQueue.length === 0) {
      this.shared++;
      return undefined;
    }
    return new Promise<void>((resolve) =>
      this.sharedWaiters.push(() => {
        this.shared++;
        resolve();
      }),
    );
  }

  exitShared(): void {
    this.shared--;
    if (this.shared === 0) this.startExclusive();
  }

  /** Runs `fn` with no write inside the gate. */
  async exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.exclusiveQueue.push(resolve);
      this.startExclusive();
    });
    try {
      return await fn();
    } finally {
      this.exclusiveRunning = false;
      this.startExclusive();
      if (!this.exclusiveRunning) {
        const waiters = this.sharedWaiters.splice(0);
        for (const w of waiters) w();
      }
    }
  }

  private startExclusive(): void {
    if (this.exclusiveRunning || this.shared > 0) return;
    const next = this.exclusiveQueue.shift();
    if (next === undefined) return;
    this.exclusiveRunning = true;
    next();
  }
}
