import { type AdvisorDatabase, gatherAdvisorInput } from '../insight/advisor/gather.js';
import { advise } from '../insight/advisor/advise.js';
import type { AdviceJson, AdvisorInput } from '../insight/advisor/types.js';
import type { HistorySource } from '../insight/history-source.js';
import type { InstanceInfo } from '../db/api.js';
import { performance as nodePerformance } from 'node:perf_hooks';
import { type InstanceName, type TableName, tableNameString } from '../model/names.js';
import type { Logger } from './logger.js';

/** A (table, rule) logged once stays quiet this long. */
export const SCHEMA_ADVICE_QUIET_MILLIS = 60 * 60_000;

export interface SchemaAdviceLogOptions {
  readonly db: AdvisorDatabase & { listProjects(): string[]; listInstances(project: string): InstanceInfo[] };
  readonly history: HistorySource;
  readonly logger: Logger;
  /** The rules (default advise(); tests of the pass give their own). */
  readonly advise?: (input: AdvisorInput) => AdviceJson;
  readonly quietMillis?: number;
  /**
   * Whether the server is busy serving now (default: the main thread's event-loop utilization since the previous
   * check is over BUSY_UTILIZATION). A due pass waits for a check that finds it idle, up to MAX_DEFER_PERIODS periods.
   */
  readonly busy?: () => boolean;
}

/** Event-loop utilization over which the server counts as busy: the pass waits. */
export const BUSY_UTILIZATION = 0.25;
/** A due pass waits for an idle moment at most this many periods; then it runs anyway. */
export const MAX_DEFER_PERIODS = 10;
/** How often a due pass checks whether the server is idle (ms). */
const IDLE_CHECK_MILLIS = 5000;

/**
 * The schema advisor's pass in the server: every period (runOnce), per
 * instance, the tables that had recorded traffic or changed (rows, bytes,
 * tablets, families) since the last pass are advised in full (the others by
 * name and size only, for the instance-wide rule), and each danger finding
 * on one of them is logged as a warning, once per (table, rule) per
 * `quietMillis` (an hour), in the style of the tablet manager's
 * single-row-hotspot line: a sentence, and the fields event
 * 'schema-advice', table, rule, message. Failures are logged, never thrown.
 * Runs only with recording on (it reads the recording's traffic and clock).
 *
 * A pass over busy tables costs a few hundred milliseconds of the serving
 * thread (row profiles, a window of the recording, every rule), so it is
 * background work that yields to traffic: a due pass waits for a moment when
 * the event loop is mostly idle (checked every 5 s), at most
 * MAX_DEFER_PERIODS periods, and only then runs under load.
 */
export class SchemaAdviceLog {
  private readonly advise: (input: AdvisorInput) => AdviceJson;
  private readonly quietMillis: number;
  /** Per table (full name): what it looked like at the last pass. */
  private readonly seen = new Map<string, string>();
  /** Per table and rule: when it was last logged. */
  private readonly logged = new Map<string, number>();
  private lastPassMillis: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly opts: SchemaAdviceLogOptions) {
    this.advise = opts.advise ?? ((input) => advise(input));
    this.quietMillis = opts.quietMillis ?? SCHEMA_ADVICE_QUIET_MILLIS;
  }

  /** Runs a pass every `everyMillis` (unref'd timer), deferred while the server is busy (see the class). */
  start(everyMillis: number): void {
    const busy = this.opts.busy ?? eventLoopBusy();
    // The first pass is due one period after start (a server just started is about to be loaded).
    let lastPass = performance.now();
    let dueSince = lastPass + everyMillis;
    this.timer = setInterval(
      () => {
        const now = performance.now();
        const isBusy = busy(); // read on every check, so that the utilization is over the last interval
        if (now - lastPass < everyMillis || this.running !== undefined) return;
        if (isBusy && now - dueSince < MAX_DEFER_PERIODS * everyMillis) return;
        lastPass = now;
        void this.runOnce().finally(() => (dueSince = lastPass + everyMillis));
      },
      Math.min(everyMillis, IDLE_CHECK_MILLIS),
    );
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass (a pass in progress is joined, not doubled). */
  runOnce(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const { db, history, logger } = this.opts;
    const now = history.nowMillis();
    const since = this.lastPassMillis;
    this.lastPassMillis = now;
    const listed = new Set<string>();
    for (const project of db.listProjects()) {
      for (const info of db.listInstances(project)) {
        try {
          const changed = await this.changedTables(info.name, since, now, listed);
          if (changed.size === 0) continue;
          const input = await gatherAdvisorInput({ db, history }, info.name, undefined, { detail: (id) => changed.has(id) });
          for (const f of this.advise(input).findings) {
            if (f.severity === 'danger' && changed.has(f.table)) this.log({ ...info.name, table: f.table }, f, now);
          }
        } catch (e) {
          logger.error(
            `schema advisor pass over ${project}/${info.name.instance} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
            {
              event: 'schema-advice-failed',
            },
          );
        }
      }
    }
    // Forget what is gone: tables deleted, and quiet times over.
    for (const key of this.seen.keys()) if (!listed.has(key)) this.seen.delete(key);
    for (const [key, at] of this.logged) if (now - at >= this.quietMillis) this.logged.delete(key);
  }

  /** Ids of the instance's tables that changed or had traffic in [since, now) (every table at the first pass). */
  private async changedTables(instance: InstanceName, since: number | undefined, now: number, listed: Set<string>): Promise<Set<string>> {
    const { db, history } = this.opts;
    const changed = new Set<string>();
    for (const t of db.listTables(instance)) {
      const key = tableNameString(t.name);
      listed.add(key);
      const size = db.tableSize(t.name);
      const look = JSON.stringify([size.rows, size.storedBytes, size.tabletIds, t.families]);
      const before = this.seen.get(key);
      this.seen.set(key, look);
      if (since === undefined || before !== look || (await history.columns(t.name, 0, since, now)).length > 0) changed.add(t.name.table);
    }
    return changed;
  }

  private log(table: TableName, f: AdviceJson['findings'][number], now: number): void {
    const name = tableNameString(table);
    const key = `${name}\u0000${f.rule}`;
    const last = this.logged.get(key);
    if (last !== undefined && now - last < this.quietMillis) return;
    this.logged.set(key, now);
    this.opts.logger.warn(
      `table ${name}: ${f.message} Suggestion: ${f.suggestion} (schema advisor rule ${f.rule}; \`tabletop advise --table ${table.table}\` shows the evidence)`,
      { event: 'schema-advice', table: name, rule: f.rule, message: f.message },
    );
  }
}

/** Busy when the event loop was in use more than BUSY_UTILIZATION of the time since the previous call. */
function eventLoopBusy(): () => boolean {
  let last = nodePerformance.eventLoopUtilization();
  return () => {
    const now = nodePerformance.eventLoopUtilization();
    const { utilization } = nodePerformance.eventLoopUtilization(now, last);
    last = now;
    return utilization > BUSY_UTILIZATION;
  };
}
