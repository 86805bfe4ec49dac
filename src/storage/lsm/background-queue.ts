/**
 * Runs background jobs one at a time: flushes before compactions, at most
 * one queued compaction per store (asking again joins the queued one).
 * `add` returns a promise of the job's completion; a failing job rejects it
 * and is reported to `onError` once, and the queue goes on.
 */
export type JobKind = 'flush' | 'compaction';

interface Job {
  readonly kind: JobKind;
  readonly storeId: string;
  readonly run: () => Promise<void>;
  readonly done: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

export class BackgroundQueue {
  private readonly flushes: Job[] = [];
  private readonly compactions: Job[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly onError: (e: unknown) => void) {}

  add(kind: JobKind, storeId: string, run: () => Promise<void>): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (kind === 'compaction') {
      const queued = this.compactions.find((j) => j.storeId === storeId);
      if (queued !== undefined) return queued.done;
    }
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const job: Job = { kind, storeId, run, done, resolve, reject };
    (kind === 'flush' ? this.flushes : this.compactions).push(job);
    if (this.running === undefined) this.running = this.drain();
    return done;
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.running === undefined) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops queued jobs (they resolve without running) and waits for the running one. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const j of [...this.flushes, ...this.compactions]) j.resolve();
    this.flushes.length = 0;
    this.compactions.length = 0;
    await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const job = this.flushes.shift() ?? this.compactions.shift();
      if (job === undefined) break;
      try {
        await job.run();
        job.resolve();
      } catch (e) {
        this.onError(e);
        job.reject(e);
      }
    }
    this.running = undefined;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const r of w) r();
  }
}
