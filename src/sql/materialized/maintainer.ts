import {
  type MaterializedViewInfo,
  type MaterializedViewMaintainer,
  type MaterializedViewStatus,
  type TableSpec,
  viewTables,
} from '../../db/index.js';
import { type ByteString, printable } from '../../model/bytes.js';
import { failedPrecondition, invalidArgument, isTabletopError, notFound } from '../../model/errors.js';
import type { RowFilter } from '../../model/filter/index.js';
import { FULL_RANGE } from '../../model/key-range.js';
import type { ChildName, InstanceName, TableName } from '../../model/names.js';
import { BYTES_TYPE } from '../../model/value-type.js';
import { schemaFingerprint } from '../analyze/analyze.js';
import type { MaterializedSource, ViewCatalog } from '../views.js';
import { fillView } from './build.js';
import { defineView } from './definition.js';
import { applyKeys } from './incremental.js';
import {
  BATCH,
  DATA_FAMILY,
  type LiveView,
  type MaintenanceContext,
  type MaterializedViewsDb,
  setCell,
  shapeOf,
  STATE_FAMILY,
  STATE_QUALIFIER,
} from './live-view.js';
import { readCell, scan, viewRows } from './view-io.js';

/**
 * The engine of continuous materialized views: it checks and builds views, keeps them up to date as writes to
 * their source tables are acknowledged, and serves their rows to the SQL engine (a MaterializedSource per
 * view). It implements the db's MaterializedViewMaintainer; src/index.ts attaches it and starts it before the
 * server serves.
 *
 * This file runs the views (registry, the worker, generations, status); build.ts fills a generation from
 * scratch, incremental.ts applies batches of dirty rows, contributions.ts computes what a source row gives the
 * view, view-io.ts reads and writes the tables, and live-view.ts holds what they share.
 *
 * Each view has two internal tables (db viewTables()):
 *
 * - `data`: the view's rows, as ReadRows with materialized_view_name serves them. Row key: for a GROUP BY view
 *   whose key is one `_key` column of BYTES or STRING, its bytes; otherwise the order-preserving encoding of the
 *   key columns (codec.ts keyPart), for a secondary index (ORDER BY) followed by the source row's key. Family
 *   `default`, one cell per non-NULL column (qualifier: the column's name; value: codec.ts cellBytes), none for a
 *   raw `_key`.
 * - `state`: family `c`, qualifier `v`, JSON values: `r<source key>` what each source row contributes (its
 *   group and aggregate arguments, or its index row's key), `g<group><source key>` the group's members (their
 *   arguments, in source key order), `s<group>` the group's key values, member count and in-place aggregate
 *   states, and `m` = `clean` while the engine is stopped after a clean close.
 *
 * Maintenance is asynchronous and off the request path: an acknowledged write marks its rows dirty; one worker
 * takes them in batches (up to BATCH rows of one view), reads each source row as it is now, computes its
 * contribution, and where it differs from the remembered one, moves it: out of its old group and into its new
 * one. COUNT, SUM of INT64 and BIT_XOR are updated in place; MIN and MAX (of non-float types), BIT_AND and
 * BIT_OR fold new members into their last result while a group only gains members; otherwise an aggregate is
 * recomputed from the group's members in source key order (so ANY_VALUE, AVG and FLOAT64 sums equal the
 * query's own result exactly). Since a row is re-read, not replayed, the view converges to the query's result
 * whatever the order writes arrive in. A DropRowRange, a change of the source table's families, a failed
 * step, or more than `maxPendingRows` dirty rows of one view (a bulk load: the set is dropped, one scan of the
 * source covers them all) rebuilds the view from the source table.
 *
 * Rebuilds never show a half-built view: a build fills the next generation's pair of tables (viewTables), then
 * the catalog's record moves to it in one step (db switchMaterializedView), so ReadRows, SampleRowKeys and SQL
 * read the previous complete view until then; the old pair is dropped `retireMillis` later (reads in progress
 * finish on it). A source row on which the view's expressions fail (TO_INT64 of 3 bytes, an overflow) is left
 * out of the view, as SAFE_ functions would, counted, and reported (status(), and a warning at most once a
 * minute per view).
 *
 * Durability: the marker `m` is written by `close()` after the last dirty row is applied and deleted by
 * `start()`; a view without it at start (a crash, or a build cut short) is rebuilt from its source table,
 * while readers see the view as it was at the crash (it may lack writes acknowledged just before: eventually
 * consistent, as in the service).
 */

const CLEAN = 'clean';
/** The wait before building again after a failed build, doubling up to the maximum. */
const FIRST_RETRY_MILLIS = 1000;
const MAX_RETRY_MILLIS = 60_000;
/** At most one warning a minute per view about rows left out. */
const WARN_EVERY_MILLIS = 60_000;
/** A row's key and no more (one value-less cell). */
const KEYS_ONLY: RowFilter = { kind: 'chain', filters: [{ kind: 'cellsPerRowLimit', limit: 1 }, { kind: 'stripValue' }] };

export interface MaterializedViewsOptions {
  /** Failures of background maintenance (logged by the server). */
  readonly onError?: (error: unknown) => void;
  /**
   * How often the rows of views that read families with an age rule are checked again (their cells expire
   * without a write); 0 never (tests call `recheckExpiring()`). Default 60 s, the GC sweep's period.
   */
  readonly expiryCheckMillis?: number;
  /** Rows left out of a view because its expressions failed on them (rate-limited; logged as warnings). */
  readonly onWarning?: (message: string) => void;
  /**
   * The most dirty source rows held in memory per view (default 100,000): past it the set is dropped and the
   * view rebuilt (one scan of the source instead of a read per row, and bounded memory under a bulk load).
   */
  readonly maxPendingRows?: number;
  /** How long the tables of a view's previous generation stay after a rebuild (default 10 s; reads finish). */
  readonly retireMillis?: number;
  /** Called after each batch a build writes, with the view's id (tests pause a build here); may wait. */
  readonly onBuildBatch?: (viewId: string) => Promise<void> | void;
  /** The time, for the last error's stamp and the warnings' rate (default Date.now). */
  readonly nowMillis?: () => number;
}

export class MaterializedViewEngine implements MaterializedViewMaintainer {
  private readonly views = new Map<string, LiveView>();
  private readonly bySource = new Map<string, LiveView[]>();
  private running: Promise<void> | undefined;
  /** The unit of work running now, its view, and whether it is a build. */
  private inFlight: { readonly view: LiveView; readonly building: boolean; readonly done: Promise<void> } | undefined;
  private stopped = false;
  private readonly onError: (error: unknown) => void;
  private readonly expiryCheckMillis: number;
  private expiryTimer: ReturnType<typeof setInterval> | undefined;
  private readonly onWarning: (message: string) => void;
  private readonly maxPendingRows: number;
  private readonly retireMillis: number;
  private readonly now: () => number;
  /** What build.ts and incremental.ts are given. */
  private readonly context: MaintenanceContext;

  constructor(
    private readonly db: MaterializedViewsDb,
    options: MaterializedViewsOptions = {},
  ) {
    this.onError = options.onError ?? ((e) => console.error('materialized view maintenance failed:', e));
    this.onWarning = options.onWarning ?? ((m) => console.error(`warning: ${m}`));
    this.expiryCheckMillis = options.expiryCheckMillis ?? 60_000;
    this.maxPendingRows = Math.max(1, options.maxPendingRows ?? 100_000);
    this.retireMillis = options.retireMillis ?? 10_000;
    this.now = options.nowMillis ?? Date.now;
    this.context = { db, leftOut: (v, where, key, e) => this.leftOut(v, where, key, e), onBuildBatch: options.onBuildBatch };
  }

  /**
   * Marks dirty every row of each view whose query reads a family with an age rule: the rows in its source table
   * and those that contributed to it (a row whose cells all expired is gone from the source table). Rows whose
   * contribution did not change cost a comparison; the view is never emptied meanwhile, as a rebuild would.
   */
  async recheckExpiring(): Promise<void> {
    for (const v of [...this.views.values()]) {
      if (!v.def.expiring || v.dropped) continue;
      try {
        const keys: ByteString[] = [];
        for await (const row of scan(this.db, v.def.source, FULL_RANGE, undefined, KEYS_ONLY)) keys.push(row.key);
        for await (const row of scan(this.db, v.state, { start: 'r', end: 's' }, undefined, KEYS_ONLY)) keys.push(row.key.slice(1));
        this.rowsChanged(v.def.source, keys);
      } catch (e) {
        if (!v.dropped) this.onError(e);
      }
    }
  }

  /** Attaches to the db and brings every view up: a view not closed cleanly is rebuilt (in the background). */
  async start(): Promise<void> {
    this.db.attachMaterializedViews(this);
    for (const info of this.db.allMaterializedViews()) {
      try {
        const v = this.register(info);
        // A rebuild that switched generations just before a stop or crash may have left the older pair.
        if (v.generation > 0) await this.dropTables(viewTables(info, v.generation - 1));
        const created = await this.createTables(v);
        const marker = created ? undefined : await readCell(this.db, v.state, 'm');
        if (marker === CLEAN) await this.db.mutateRow(v.state, 'm', [{ kind: 'deleteFromRow' }]);
        else v.rebuild = true;
      } catch (e) {
        this.onError(e);
      }
    }
    this.kick();
    if (this.expiryCheckMillis > 0) {
      this.expiryTimer = setInterval(() => void this.recheckExpiring(), this.expiryCheckMillis);
      this.expiryTimer.unref();
    }
  }

  /** Applies what is pending, then marks every view clean (a later start need not rebuild it). */
  async close(): Promise<void> {
    clearInterval(this.expiryTimer);
    for (const v of this.views.values()) if (v.retry !== undefined) clearTimeout(v.retry);
    await this.idle();
    this.stopped = true;
    for (const v of this.views.values()) {
      await this.dropRetired(v).catch((e: unknown) => this.onError(e));
      if (v.rebuild || v.pending.size > 0 || v.dropped || v.broken) continue;
      await this.db.mutateRow(v.state, 'm', [setCell(STATE_FAMILY, STATE_QUALIFIER, Buffer.from(CLEAN))]);
    }
  }

  /** Resolves once no view has work left (tests: the view has caught up with every acknowledged write). */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** The SQL engine's side: FROM a materialized view reads its rows through this. */
  catalog(): Pick<ViewCatalog, 'materializedView'> {
    return { materializedView: (instance, id) => this.source(instance, id) };
  }

  // ---- MaterializedViewMaintainer ----

  check(instance: InstanceName, query: string): string {
    try {
      return defineView(query, instance, this.db).source.table;
    } catch (e) {
      // A query over a table that does not exist is not a valid definition: INVALID_ARGUMENT, as for logical views.
      if (isTabletopError(e, 'NotFound')) throw invalidArgument(e.message);
      throw e;
    }
  }

  status(name: ChildName): MaterializedViewStatus | undefined {
    const v = this.views.get(viewKey(name));
    if (v === undefined) return undefined;
    return {
      pendingRows: v.pending.size,
      rebuilding: v.rebuild || (this.inFlight?.view === v && this.inFlight.building),
      rebuilds: v.rebuilds,
      evaluationErrors: v.evaluationErrors,
      ...(v.lastEvaluationError === undefined ? {} : { lastEvaluationError: v.lastEvaluationError }),
    };
  }

  watches(table: TableName): boolean {
    return this.bySource.size > 0 && this.bySource.has(tableKey(table));
  }

  async created(info: MaterializedViewInfo): Promise<void> {
    const v = this.register(info);
    await this.createTables(v);
    const built = new Promise<void>((resolve, reject) => v.builtWaiters.push({ resolve, reject }));
    v.rebuild = true;
    this.kick();
    await built;
  }

  async deleted(info: MaterializedViewInfo): Promise<void> {
    // The view of that uid: a view of the same id created since (after the record went) is another one.
    const found = this.views.get(viewKey(info.name));
    const v = found?.info.uid === info.uid ? found : undefined;
    if (v !== undefined) this.unregister(v);
    // Its unit of work in flight, if any, ends before its tables go (no other starts: it is unregistered).
    const inFlight = this.inFlight;
    if (inFlight !== undefined && inFlight.view === v) await inFlight.done.catch(() => undefined);
    if (v?.retired !== undefined) clearTimeout(v.retired.timer);
    // Its generation, the one before (retired) and the one after (a build cut short by the deletion).
    const g = Math.max(info.generation, v?.generation ?? 0);
    for (const gen of [g - 1, g, g + 1]) if (gen >= 0) await this.dropTables(viewTables(info, gen));
  }

  rowsChanged(table: TableName, keys: readonly ByteString[] | 'all'): void {
    const views = this.bySource.get(tableKey(table));
    if (views === undefined) return;
    for (const v of views) {
      if (keys === 'all') v.rebuild = true;
      // A queued rebuild reads every row as it will be: no key need be held.
      if (v.rebuild) {
        v.pending.clear();
        continue;
      }
      for (const k of keys) {
        if (v.pending.size >= this.maxPendingRows && !v.pending.has(k)) {
          // Too many to hold: one scan of the source covers them all.
          v.pending.clear();
          v.rebuild = true;
          break;
        }
        v.pending.add(k);
      }
    }
    this.kick();
  }

  // ---- registry ----

  private register(info: MaterializedViewInfo): LiveView {
    const def = defineView(info.query, info.name, this.db);
    const tables = viewTables(info);
    const v: LiveView = {
      info,
      def,
      generation: info.generation,
      data: tables.data,
      state: tables.state,
      retired: undefined,
      rebuilds: 0,
      evaluationErrors: 0,
      lastEvaluationError: undefined,
      unwarned: 0,
      warnedAt: -Infinity,
      ...shapeOf(def),
      misfit: undefined,
      pending: new Set(),
      rebuild: false,
      dropped: false,
      broken: false,
      builtWaiters: [],
      retry: undefined,
      retryMillis: FIRST_RETRY_MILLIS,
    };
    this.views.set(viewKey(info.name), v);
    const sk = tableKey(def.source);
    this.bySource.set(sk, [...(this.bySource.get(sk) ?? []), v]);
    return v;
  }

  private unregister(v: LiveView): void {
    v.dropped = true;
    if (v.retry !== undefined) clearTimeout(v.retry);
    this.views.delete(viewKey(v.info.name));
    const sk = tableKey(v.def.source);
    const rest = (this.bySource.get(sk) ?? []).filter((x) => x !== v);
    if (rest.length === 0) this.bySource.delete(sk);
    else this.bySource.set(sk, rest);
    for (const w of v.builtWaiters) w.reject(notFound(`Materialized view ${v.info.name.id} was deleted`));
    v.builtWaiters = [];
  }

  /** Whether the view is still in the catalog (the same view: not deleted and created again). */
  private exists(v: LiveView): boolean {
    try {
      return this.db.getMaterializedView(v.info.name).uid === v.info.uid;
    } catch (e) {
      if (isTabletopError(e, 'NotFound')) return false;
      throw e;
    }
  }

  /** Creates these internal tables where missing; true when the state table was created now. */
  private async createTables(tables: { readonly data: TableName; readonly state: TableName }): Promise<boolean> {
    let created = false;
    for (const [name, family] of [
      [tables.data, DATA_FAMILY],
      [tables.state, STATE_FAMILY],
    ] as const) {
      try {
        this.db.getTable(name);
      } catch (e) {
        if (!isTabletopError(e, 'NotFound')) throw e;
        const spec: TableSpec = {
          families: [{ name: family, gcRule: { kind: 'maxVersions', versions: 1 }, valueType: BYTES_TYPE }],
          initialSplits: [],
          deletionProtection: false,
          internal: true,
        };
        await this.db.createTable(name, spec);
        if (name === tables.state) created = true;
      }
    }
    return created;
  }

  /** Deletes these internal tables where they exist. */
  private async dropTables(tables: { readonly data: TableName; readonly state: TableName }): Promise<void> {
    for (const t of [tables.data, tables.state]) {
      try {
        await this.db.deleteTable(t);
      } catch (e) {
        if (!isTabletopError(e, 'NotFound')) throw e;
      }
    }
  }

  /** The generation a rebuild replaced goes after `retireMillis` (reads already on it finish first). */
  private retire(v: LiveView, generation: number): void {
    const timer =
      this.retireMillis <= 0
        ? undefined
        : setTimeout(() => void this.dropRetired(v).catch((e: unknown) => this.onError(e)), this.retireMillis);
    timer?.unref();
    v.retired = { generation, timer };
    if (timer === undefined) void this.dropRetired(v).catch((e: unknown) => this.onError(e));
  }

  private async dropRetired(v: LiveView): Promise<void> {
    const retired = v.retired;
    if (retired === undefined) return;
    v.retired = undefined;
    clearTimeout(retired.timer);
    if (!v.dropped) await this.dropTables(viewTables(v.info, retired.generation));
  }

  // ---- the worker ----

  private kick(): void {
    if (this.running !== undefined || this.stopped) return;
    this.running = this.work().finally(() => {
      this.running = undefined;
      if (this.nextView() !== undefined) this.kick();
    });
  }

  private nextView(): LiveView | undefined {
    for (const v of this.views.values()) if (v.rebuild || v.pending.size > 0) return v;
    return undefined;
  }

  private async work(): Promise<void> {
    for (let v = this.nextView(); v !== undefined; v = this.nextView()) {
      const building = v.rebuild;
      const done = this.step(v, building);
      this.inFlight = { view: v, building, done };
      try {
        await done;
      } catch (e) {
        this.failed(v, building, e);
      } finally {
        this.inFlight = undefined;
      }
    }
  }

  /** One unit of work: a whole build, or one dirty source row. */
  private async step(v: LiveView, building: boolean): Promise<void> {
    if (!this.refresh(v)) return;
    if (v.rebuild) building = true;
    if (building) {
      v.rebuild = false;
      // Every write acknowledged so far is in what the build reads.
      v.pending.clear();
      await this.build(v);
      v.broken = false;
      v.retryMillis = FIRST_RETRY_MILLIS;
      const waiters = v.builtWaiters;
      v.builtWaiters = [];
      for (const w of waiters) w.resolve();
      return;
    }
    const keys: ByteString[] = [];
    for (const key of v.pending) {
      keys.push(key);
      if (keys.length >= BATCH) break;
    }
    for (const key of keys) v.pending.delete(key);
    await applyKeys(this.context, v, keys);
  }

  /**
   * Follows a change of the source table's families: the query is analyzed again and the view rebuilt (a dropped
   * family's cells left without a write). False when the query no longer fits the table (it reads a family that
   * is gone): the view then stays as it was, reported once, until the families fit again.
   */
  private refresh(v: LiveView): boolean {
    const fingerprint = schemaFingerprint(this.db.getTable(v.def.source));
    if (fingerprint === v.def.analyzed.fingerprint && v.misfit === undefined) return true;
    if (fingerprint === v.misfit) {
      v.pending.clear();
      v.rebuild = false;
      return false;
    }
    try {
      v.def = defineView(v.info.query, v.info.name, this.db);
    } catch (e) {
      // Reported once while it does not fit, however many family changes keep it so.
      const reported = v.misfit !== undefined;
      v.misfit = fingerprint;
      v.broken = true;
      v.pending.clear();
      v.rebuild = false;
      const misfit = failedPrecondition(
        `materialized view ${v.info.name.id} no longer fits its source table ${v.def.source.table}: ${(e as Error).message}`,
      );
      // A CreateMaterializedView waiting for its first build fails (and its view is discarded) rather than hang.
      const waiters = v.builtWaiters;
      v.builtWaiters = [];
      for (const w of waiters) w.reject(misfit);
      if (!reported) this.onError(misfit);
      return false;
    }
    Object.assign(v, shapeOf(v.def));
    v.misfit = undefined;
    v.rebuild = true;
    return true;
  }

  private failed(v: LiveView, building: boolean, e: unknown): void {
    if (v.dropped) return;
    if (!this.exists(v)) {
      // Gone with its instance (DeleteInstance drops its views and their tables).
      this.unregister(v);
      return;
    }
    if (building) {
      v.broken = true;
      const waiters = v.builtWaiters;
      v.builtWaiters = [];
      for (const w of waiters) w.reject(e);
      // Build again later (the rows the build was to cover are no longer pending), backing off while it fails;
      // a view whose create failed is gone by then (discarded by CreateMaterializedView).
      if (waiters.length === 0 && !this.stopped && v.retry === undefined) {
        const wait = v.retryMillis;
        v.retryMillis = Math.min(MAX_RETRY_MILLIS, wait * 2);
        v.retry = setTimeout(() => {
          v.retry = undefined;
          if (v.dropped || this.stopped) return;
          v.rebuild = true;
          this.kick();
        }, wait);
        v.retry.unref?.();
      }
    } else v.rebuild = true; // the view may be half-updated: build it again
    this.onError(e);
  }

  // ---- evaluation errors ----

  /**
   * A source row on which the view's expressions fail is left out of the view (the query itself would fail;
   * a view cannot): counted, kept as the last error, and told in a warning at most once a minute per view.
   */
  private leftOut(v: LiveView, where: 'source row' | 'group', key: ByteString, e: unknown): undefined {
    const message = e instanceof Error ? e.message : String(e);
    const now = this.now();
    v.evaluationErrors++;
    v.unwarned++;
    v.lastEvaluationError = { where, key: printable(key), message, timeMillis: now };
    if (now - v.warnedAt >= WARN_EVERY_MILLIS) {
      this.onWarning(
        `materialized view ${v.info.name.id}: ${v.unwarned} evaluation error(s) left rows out of the view ` +
          `(${v.evaluationErrors} since start); last: ${where} ${printable(key)}: ${message}`,
      );
      v.warnedAt = now;
      v.unwarned = 0;
    }
    return undefined;
  }

  // ---- building from scratch ----

  /**
   * Builds the view into the next generation's tables (emptied first: a build cut short may have left them),
   * then moves the catalog's record to them: readers see the previous view whole until that moment.
   */
  private async build(v: LiveView): Promise<void> {
    await this.dropRetired(v);
    v.rebuilds++;
    const next = v.generation + 1;
    const target = viewTables(v.info, next);
    await this.dropTables(target);
    await this.createTables(target);
    await fillView(this.context, v, target);
    await this.db.switchMaterializedView(v.info.name, v.info.uid, next);
    const old = v.generation;
    v.generation = next;
    v.data = target.data;
    v.state = target.state;
    this.retire(v, old);
  }

  // ---- reading a view ----

  private source(instance: InstanceName, id: string): MaterializedSource | undefined {
    const v = this.views.get(viewKey({ ...instance, id }));
    if (v === undefined) return undefined;
    if (!this.exists(v)) {
      this.unregister(v);
      return undefined;
    }
    const rawBytesKey = v.def.rawKey && v.def.columns[0]!.type.kind === 'BYTES';
    return {
      columns: v.def.columns,
      fingerprint: v.info.uid,
      ...(rawBytesKey ? { keyColumn: 0 } : {}),
      rows: (signal, ranges) => viewRows(this.db, v, signal, ranges),
    };
  }
}

function tableKey(t: TableName): string {
  return `${t.project}/${t.instance}/${t.table}`;
}

function viewKey(n: InstanceName & { readonly id: string }): string {
  return `${n.project}/${n.instance}/${n.id}`;
}
