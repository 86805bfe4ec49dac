/**
 * Runs background jobs in two lanes, as LevelDB and RocksDB keep flushes
 * apart from merges: flushes one at a time in theirs, compactions one at a
 * time in theirs, so a long compaction does not hold back the flushes that
 * free memtable memory (and unblock stalled writers). At most one queued
 * compaction per store (asking again joins the queued one). An exclusive job
 * (splits, merges, GC passes: they replace a store or compact it themselves)
 * runs in the flush lane once no compaction is running, and no compaction
 * starts until it is done; while it waits for a running compaction, flushes
 * queued behind it go first (a flush takes the store's state when it runs,
 * so running it earlier is the same as having asked for it earlier), so a
 * long compaction never holds back flushes. `add` returns a promise of the job's completion; a
 * failing job rejects it and is reported to `onError` once, and its lane goes
 * on.
 *
 * What a flush may do while a compaction of the same store runs: add a file
 * newer than every compaction input (the compaction installs its result by
 * removing exactly its inputs) and move the store's oldest unflushed
 * sequence number up (a major compaction clears range drops only up to the
 * bound it saw when it started).
 */
export type JobKind = 'flush' | 'compaction' | 'exclusive';

interface Job {
  readonly kind: JobKind;
  readonly storeId: string;
  readonly run: () => Promise<void>;
  readonly done: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

export class BackgroundQueue {
  /** Flushes and exclusive jobs, in order. */
  private readonly flushes: Job[] = [];
  private readonly compactions: Job[] = [];
  private flushLane: Promise<void> | undefined;
  private compactionLane: Promise<void> | undefined;
  /** Exclusive jobs queued or running: compactions do not start meanwhile. */
  private exclusive = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** Wakes an exclusive job waiting for the compaction lane when a flush is queued behind it. */
  private flushQueued: (() => void) | undefined;

  constructor(private readonly onError: (e: unknown, job: { readonly kind: JobKind; readonly storeId: string }) => void) {}

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
    if (kind === 'compaction') this.compactions.push(job);
    else {
      if (kind === 'exclusive') this.exclusive++;
      this.flushes.push(job);
      if (kind === 'flush') this.flushQueued?.();
    }
    this.kick();
    return done;
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.flushLane === undefined && this.compactionLane === undefined) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops queued jobs (they resolve without running) and waits for the running ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const j of [...this.flushes, ...this.compactions]) j.resolve();
    this.flushes.length = 0;
    this.compactions.length = 0;
    await Promise.all([this.flushLane, this.compactionLane]);
  }

  private kick(): void {
    if (this.flushLane === undefined && this.flushes.length > 0) {
      this.flushLane = this.drainFlushes().finally(() => {
        this.flushLane = undefined;
        this.afterLane();
      });
    }
    if (this.compactionLane === undefined && this.compactions.length > 0 && this.exclusive === 0) {
      this.compactionLane = this.drainCompactions().finally(() => {
        this.compactionLane = undefined;
        this.afterLane();
      });
    }
  }

  private afterLane(): void {
    this.kick();
    if (this.flushLane !== undefined || this.compactionLane !== undefined) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const r of w) r();
  }

  private async drainFlushes(): Promise<void> {
    for (let job = this.flushes.shift(); job !== undefined; job = this.flushes.shift()) {
      if (job.kind === 'exclusive') {
        // Queued compactions wait (kick() starts none while exclusive > 0); a running one finishes
        // first, and the flushes queued meanwhile run while it does.
        while (this.compactionLane !== undefined) {
          const i = this.flushes.findIndex((j) => j.kind === 'flush');
          if (i >= 0) {
            await this.runJob(this.flushes.splice(i, 1)[0]!);
            continue;
          }
          await Promise.race([this.compactionLane, new Promise<void>((resolve) => (this.flushQueued = resolve))]);
          this.flushQueued = undefined;
        }
        try {
          await this.runJob(job);
        } finally {
          this.exclusive--;
          this.kick();
        }
      } else await this.runJob(job);
    }
  }

  private async drainCompactions(): Promise<void> {
    while (this.exclusive === 0) {
      const job = this.compactions.shift();
      if (job === undefined) return;
      await this.runJob(job);
    }
  }

  private async runJob(job: Job): Promise<void> {
    try {
      await job.run();
      job.resolve();
    } catch (e) {
      this.onError(e, job);
      job.reject(e);
    }
  }
}
