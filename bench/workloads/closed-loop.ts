import { Histogram } from '../stats/histogram.js';
import type { Counts, Measured, RunContext } from './workload.js';

/**
 * A closed-loop load driver: `concurrency` lanes each issue one operation,
 * wait for it, and issue the next, until the time is up or the items run
 * out. Operations still in flight when the time is up complete and count.
 * The first failure stops every lane and is rethrown: a benchmark that
 * ignores errors measures nothing.
 */

export interface OpResult {
  readonly rows: number;
  readonly bytes: number;
}

export interface ClosedLoopOptions {
  readonly concurrency: number;
  /** Stop issuing after this many seconds ... */
  readonly seconds?: number;
  /** ... or after this many items (item numbers 0 … items-1 are handed out in order). */
  readonly items?: number;
  /** Count per operation or per row in `tick`. */
  readonly tickPer: 'op' | 'row';
  readonly latency: boolean;
  readonly tick: (done: number) => void;
  /** One operation: `lane` is 0 … concurrency-1, `item` the next item number. */
  readonly op: (lane: number, item: number) => Promise<OpResult>;
}

export async function closedLoop(o: ClosedLoopOptions): Promise<Counts> {
  if (o.seconds === undefined && o.items === undefined) throw new Error('closedLoop needs seconds or items');
  const deadline = o.seconds === undefined ? Infinity : performance.now() + o.seconds * 1000;
  const histogram = o.latency ? new Histogram() : undefined;
  let nextItem = 0;
  let ops = 0;
  let rows = 0;
  let bytes = 0;
  let failure: { error: unknown } | undefined;

  const lane = async (id: number): Promise<void> => {
    while (failure === undefined && performance.now() < deadline && (o.items === undefined || nextItem < o.items)) {
      const item = nextItem++;
      const t0 = performance.now();
      let r: OpResult;
      try {
        r = await o.op(id, item);
      } catch (e) {
        failure ??= { error: e };
        return;
      }
      histogram?.record((performance.now() - t0) * 1000);
      ops++;
      rows += r.rows;
      bytes += r.bytes;
      o.tick(o.tickPer === 'op' ? ops : rows);
    }
  };

  await Promise.all(Array.from({ length: o.concurrency }, (_, i) => lane(i)));
  if (failure !== undefined) throw failure.error;
  return { ops, rows, bytes, ...(histogram === undefined ? {} : { latency: histogram }) };
}

/** What a workload's loop needs of its run: the client, the tables, the run's id (seeds, fresh keys) and its progress. */
export type LoopContext = Pick<RunContext, 'client' | 'dataset' | 'runId' | 'tick'>;

/**
 * A timed workload's loop: its operation, and the check of its answers once
 * the loop is over (outside the measured part). The same plan runs as an
 * isolated workload (runPlan) and as a phase of the mixed workload.
 */
export interface LoopPlan extends Pick<ClosedLoopOptions, 'concurrency' | 'tickPer' | 'latency' | 'op'> {
  /** Throws when what the loop did (its counts) is not what the server holds. */
  readonly verify?: (counts: Counts) => Promise<void>;
}

/** A timed workload's measured part: the plan's closed loop for the run's time, with its progress; then its check. */
export async function runPlan(ctx: RunContext, plan: LoopPlan): Promise<Measured> {
  const m = await ctx.measure(() => closedLoop({ ...plan, seconds: ctx.seconds, tick: ctx.tick }));
  await plan.verify?.(m);
  return m;
}
