import type { DatabaseCore, MaterializedViewInfo, MaterializedViewMaintainer, MaterializedViewStatus, TableSpec } from '../../db/index.js';
import { viewTables } from '../../db/index.js';
import type { ByteString } from '../../model/bytes.js';
import { fromBytes, fromUtf8, prefixSuccessor, printable, toBytes, toUtf8 } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import type { RowFilter } from '../../model/filter/index.js';
import { isTabletopError, notFound } from '../../model/errors.js';
import { FULL_RANGE, type KeyRange, pointRange } from '../../model/key-range.js';
import type { Mutation, RowMutation } from '../../model/mutation.js';
import { SERVER_TIME } from '../../model/mutation.js';
import type { ChildName, InstanceName, TableName } from '../../model/names.js';
import { BYTES_TYPE } from '../../model/value-type.js';
import { schemaFingerprint } from '../analyze/analyze.js';
import { type EvalEnv, evaluate } from '../bound/evaluate.js';
import { scanRow } from '../exec/scan.js';
import type { Accumulator } from '../functions/index.js';
import { LATEST_CELL, readRequest, rowSetOf } from '../plan/read-plan.js';
import { BYTES, SqlTimestamp, type SqlType, type SqlValue } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { isEvalError } from '../values/errors.js';
import type { MaterializedSource, ViewCatalog } from '../views.js';
import { type Stored, cellBytes, fromCellBytes, fromStored, keyOf, keyPart, toStored } from './codec.js';
import { type ViewDefinition, defineView } from './definition.js';

/**
 * The engine of continuous materialized views: it checks and builds views, keeps them up to date as writes to
 * their source tables are acknowledged, and serves their rows to the SQL engine (a MaterializedSource per
 * view). It implements the db's MaterializedViewMaintainer; src/index.ts attaches it and starts it before the
 * server serves.
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

const DATA_FAMILY = 'default';
const STATE_FAMILY = 'c';
const STATE_QUALIFIER = 'v';
const CLEAN = 'clean';
const BATCH = 500;
/** At most one warning a minute per view about rows left out. */
const WARN_EVERY_MILLIS = 60_000;
/** A row's key and no more (one value-less cell). */
const KEYS_ONLY: RowFilter = { kind: 'chain', filters: [{ kind: 'cellsPerRowLimit', limit: 1 }, { kind: 'stripValue' }] };

export type MaterializedViewsDb = Pick<
  DatabaseCore,
  'getTable' | 'readRows' | 'mutateRows' | 'mutateRow' | 'createTable' | 'deleteTable' | 'dropRowRange' | 'getMaterializedView'
> & {
  attachMaterializedViews(maintainer: MaterializedViewMaintainer): void;
  allMaterializedViews(): MaterializedViewInfo[];
  switchMaterializedView(name: ChildName, uid: string, generation: number): Promise<void>;
};

interface LiveView {
  readonly info: MaterializedViewInfo;
  /** The query analyzed against the source table's schema of the moment (again after a family change). */
  def: ViewDefinition;
  /** The generation whose tables hold the view now (the catalog's), and those tables. */
  generation: number;
  data: TableName;
  state: TableName;
  /** An older generation whose tables go once reads in progress on them are done. */
  retired: { readonly generation: number; readonly timer: ReturnType<typeof setTimeout> | undefined } | undefined;
  slotOf: ReadonlyMap<string, number>;
  groupTypes: readonly SqlType[];
  /** The source schema under which the query stopped fitting (its families changed): nothing is applied. */
  misfit: string | undefined;
  /** Source rows to bring up to date (ByteString keys). */
  readonly pending: Set<ByteString>;
  rebuild: boolean;
  dropped: boolean;
  /** A build failed: the view is not what its query gives (it is not marked clean, so a restart rebuilds it). */
  broken: boolean;
  /** Waiting for the next build to finish (CreateMaterializedView). */
  builtWaiters: { resolve: () => void; reject: (e: unknown) => void }[];
  rebuilds: number;
  evaluationErrors: number;
  lastEvaluationError: MaterializedViewStatus['lastEvaluationError'];
  /** Evaluation errors not yet in a warning, and when the last warning went. */
  unwarned: number;
  warnedAt: number;
}

/** What a source row contributes to an aggregating view: its group and its aggregates' arguments. */
interface Contribution {
  readonly g: ByteString;
  readonly k: readonly Stored[];
  readonly a: readonly (readonly Stored[])[];
}

/** What a batch changes in one group: the arguments of the members that left it and of those that joined. */
interface GroupDelta {
  readonly k: readonly Stored[];
  readonly removed: Contribution['a'][];
  readonly added: Contribution['a'][];
}

/** A group's bookkeeping: key values, member count, in-place aggregate states (count and value). */
interface GroupState {
  k: Stored[];
  n: number;
  acc: ({ c: string; v: string } | null)[];
  /** The last result of each aggregate not kept in place (null for those kept in place). */
  r?: Stored[];
}

const ENV: EvalEnv = { params: new Map(), ctx: { now: new SqlTimestamp(0n) } };

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

  constructor(
    private readonly db: MaterializedViewsDb,
    private readonly options: MaterializedViewsOptions = {},
  ) {
    this.onError = options.onError ?? ((e) => console.error('materialized view maintenance failed:', e));
    this.onWarning = options.onWarning ?? ((m) => console.error(`warning: ${m}`));
    this.expiryCheckMillis = options.expiryCheckMillis ?? 60_000;
    this.maxPendingRows = Math.max(1, options.maxPendingRows ?? 100_000);
    this.retireMillis = options.retireMillis ?? 10_000;
    this.now = options.nowMillis ?? Date.now;
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
        for await (const row of this.scan(v.def.source, FULL_RANGE, undefined, KEYS_ONLY)) keys.push(row.key);
        for await (const row of this.scan(v.state, { start: 'r', end: 's' }, undefined, KEYS_ONLY)) keys.push(row.key.slice(1));
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
        const marker = created ? undefined : await this.readCell(v.state, 'm');
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
    const def = defineView(query, instance, this.db);
    if (def.source.table.startsWith('$')) throw notFound(`Table not found: ${def.source.table}`);
    return def.source.table;
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
    const v = this.views.get(viewKey(info.name));
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
    };
    this.views.set(viewKey(info.name), v);
    const sk = tableKey(def.source);
    this.bySource.set(sk, [...(this.bySource.get(sk) ?? []), v]);
    return v;
  }

  private unregister(v: LiveView): void {
    v.dropped = true;
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
    await this.applyKeys(v, keys);
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
      v.misfit = fingerprint;
      v.broken = true;
      v.pending.clear();
      v.rebuild = false;
      this.onError(
        new Error(`materialized view ${v.info.name.id} no longer fits its source table ${v.def.source.table}: ${(e as Error).message}`),
      );
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
    } else v.rebuild = true; // the view may be half-updated: build it again
    this.onError(e);
  }

  // ---- reading ----

  private async readCell(table: TableName, key: ByteString): Promise<string | undefined> {
    const row = await this.readOne(table, key);
    const cell = row?.cells[0];
    return cell === undefined ? undefined : Buffer.from(cell.value).toString('utf8');
  }

  private async readOne(table: TableName, key: ByteString): Promise<Row | undefined> {
    const reader = this.db.readRows(table, { rows: { keys: [key], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
    try {
      return await reader.next();
    } finally {
      reader.close();
    }
  }

  private async *scan(table: TableName, range: KeyRange | readonly KeyRange[], v?: LiveView, filter?: RowFilter): AsyncGenerator<Row> {
    const ranges = Array.isArray(range) ? (range as readonly KeyRange[]) : [range as KeyRange];
    const request =
      v === undefined
        ? { rows: rowSetOf(ranges), filter, limit: undefined, reversed: false }
        : readRequest(v.def.analyzed, ranges, v.def.families, LATEST_CELL);
    const reader = this.db.readRows(table, request);
    try {
      for (;;) {
        let row = reader.next();
        if (row instanceof Promise) row = await row;
        if (row === undefined) return;
        yield row;
      }
    } finally {
      reader.close();
    }
  }

  /** The source rows that exist of `keys` (sorted), as the query sees them (`[_key, family maps...]`). */
  private async sourceRows(v: LiveView, keys: readonly ByteString[]): Promise<Map<ByteString, SqlValue[]>> {
    const out = new Map<ByteString, SqlValue[]>();
    for await (const row of this.scan(v.def.source, keys.map(pointRange), v)) out.set(row.key, this.scanValues(v, row));
    return out;
  }

  /** The first cell's text of each of these rows that exists. */
  private async cells(table: TableName, keys: readonly ByteString[]): Promise<Map<ByteString, string>> {
    const out = new Map<ByteString, string>();
    if (keys.length === 0) return out;
    const reader = this.db.readRows(table, { rows: { keys: [...keys], ranges: [] }, filter: undefined, limit: undefined, reversed: false });
    try {
      for (;;) {
        let row = reader.next();
        if (row instanceof Promise) row = await row;
        if (row === undefined) return out;
        const cell = row.cells[0];
        if (cell !== undefined) out.set(row.key, Buffer.from(cell.value).toString('utf8'));
      }
    } finally {
      reader.close();
    }
  }

  private scanValues(v: LiveView, row: Row): SqlValue[] {
    return scanRow(row, v.def.analyzed, v.def.families, v.slotOf, false);
  }

  // ---- contributions ----

  /** Whether the row passes WHERE (a row whose expressions fail to evaluate is left out of the view). */
  private passes(v: LiveView, row: SqlValue[]): boolean {
    const where = v.def.analyzed.where;
    return where === undefined || evaluate(where, row, ENV) === true;
  }

  private contribution(v: LiveView, key: ByteString, row: SqlValue[]): Contribution | undefined {
    const agg = v.def.analyzed.aggregate!;
    try {
      if (!this.passes(v, row)) return undefined;
      const keys = agg.groups.map((g) => evaluate(g, row, ENV));
      const args = agg.aggregates.map((a) => a.args.map((x) => toStored(evaluate(x, row, ENV))));
      return { g: keyOf(keys, v.groupTypes), k: keys.map(toStored), a: args };
    } catch (e) {
      if (isEvalError(e)) return this.leftOut(v, 'source row', key, e);
      throw e;
    }
  }

  /** An index view's row for a source row: its key and cells, or undefined when the row is not in the view. */
  private indexRow(v: LiveView, key: ByteString, row: SqlValue[]): { key: ByteString; values: SqlValue[] } | undefined {
    const q = v.def.analyzed;
    try {
      if (!this.passes(v, row)) return undefined;
      const values = q.projection.slice(0, q.columns.length).map((p) => evaluate(p, row, ENV));
      const keyValues = v.def.resultIndex.slice(0, v.def.keyColumns).map((i) => values[i]!);
      const keyTypes = v.def.columns.slice(0, v.def.keyColumns).map((c) => c.type);
      return { key: keyOf(keyValues, keyTypes) + keyPart(new Uint8Array(toBytes(key)), BYTES), values };
    } catch (e) {
      if (isEvalError(e)) return this.leftOut(v, 'source row', key, e);
      throw e;
    }
  }

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

  // ---- incremental maintenance ----

  /**
   * Brings a batch of dirty source rows up to date: one read of the rows, one of what they contributed, one write
   * of the bookkeeping; then each group they left or joined once (one read of their states, one write of the
   * states and one of the view's rows).
   */
  private async applyKeys(v: LiveView, keys: ByteString[]): Promise<void> {
    keys.sort();
    const rows = await this.sourceRows(v, keys);
    const prevs = await this.cells(
      v.state,
      keys.map((k) => 'r' + k),
    );
    if (v.def.kind === 'index') return this.applyIndexKeys(v, keys, rows, prevs);
    const entries: RowMutation[] = [];
    const deltas = new Map<ByteString, GroupDelta>();
    const delta = (c: Contribution): GroupDelta => {
      let d = deltas.get(c.g);
      if (d === undefined) deltas.set(c.g, (d = { k: c.k, removed: [], added: [] }));
      return d;
    };
    for (const key of keys) {
      const row = rows.get(key);
      const next = row === undefined ? undefined : this.contribution(v, key, row);
      const prevText = prevs.get('r' + key);
      const nextText = next === undefined ? undefined : JSON.stringify(next);
      if (prevText === nextText) continue;
      const prev = prevText === undefined ? undefined : (JSON.parse(prevText) as Contribution);
      // A member that stays in its group has its arguments overwritten (one entry per row key in the batch).
      if (prev !== undefined && prev.g !== next?.g) entries.push({ key: 'g' + prev.g + key, mutations: [{ kind: 'deleteFromRow' }] });
      if (prev !== undefined) delta(prev).removed.push(prev.a);
      if (next !== undefined) {
        entries.push({ key: 'g' + next.g + key, mutations: [stateCell(JSON.stringify(next.a))] });
        entries.push({ key: 'r' + key, mutations: [stateCell(nextText!)] });
        delta(next).added.push(next.a);
      } else entries.push({ key: 'r' + key, mutations: [{ kind: 'deleteFromRow' }] });
    }
    if (entries.length === 0) return;
    await this.write(v.state, entries);
    await this.updateGroups(v, deltas);
  }

  private async applyIndexKeys(
    v: LiveView,
    keys: readonly ByteString[],
    rows: ReadonlyMap<ByteString, SqlValue[]>,
    prevs: ReadonlyMap<ByteString, string>,
  ): Promise<void> {
    const data: RowMutation[] = [];
    const state: RowMutation[] = [];
    for (const key of keys) {
      const row = rows.get(key);
      const next = row === undefined ? undefined : this.indexRow(v, key, row);
      const prev = prevs.get('r' + key);
      // View keys end with the source row's key: no two source rows share one.
      if (prev !== undefined && prev !== next?.key) data.push({ key: prev, mutations: [{ kind: 'deleteFromRow' }] });
      if (next !== undefined) data.push({ key: next.key, mutations: this.viewCells(v, next.values) });
      if (next !== undefined && next.key !== prev) state.push({ key: 'r' + key, mutations: [stateCell(next.key)] });
      else if (next === undefined && prev !== undefined) state.push({ key: 'r' + key, mutations: [{ kind: 'deleteFromRow' }] });
    }
    await this.write(v.data, data);
    await this.write(v.state, state);
  }

  /** Takes the members that left each group out and puts those that joined in, then writes its state and view row. */
  private async updateGroups(v: LiveView, deltas: ReadonlyMap<ByteString, GroupDelta>): Promise<void> {
    const agg = v.def.analyzed.aggregate!;
    const groups = [...deltas.keys()].sort();
    const texts = await this.cells(
      v.state,
      groups.map((g) => 's' + g),
    );
    const stateOut: RowMutation[] = [];
    const dataOut: RowMutation[] = [];
    for (const g of groups) {
      const d = deltas.get(g)!;
      const text = texts.get('s' + g);
      const state: GroupState =
        text === undefined
          ? { k: [...d.k], n: 0, acc: v.def.inPlace.map((p) => (p ? { c: '0', v: '0' } : null)) }
          : (JSON.parse(text) as GroupState);
      for (const a of d.removed) {
        state.n--;
        this.applyInPlace(v, state, a, -1n);
      }
      for (const a of d.added) {
        state.n++;
        this.applyInPlace(v, state, a, 1n);
      }
      const keyValues = state.k.map(fromStored);
      const viewKey = this.groupViewKey(v, g, keyValues);
      if (state.n <= 0) {
        stateOut.push({ key: 's' + g, mutations: [{ kind: 'deleteFromRow' }] });
        if (viewKey !== undefined) dataOut.push({ key: viewKey, mutations: [{ kind: 'deleteFromRow' }] });
        continue;
      }
      let cells: Mutation[] | undefined;
      try {
        const results = await this.groupResults(v, g, d, state);
        cells = this.viewCells(v, this.project(v, keyValues, results));
        state.r = results.map((x, i) => (v.def.inPlace[i] ? null : toStored(x)));
      } catch (e) {
        if (!isEvalError(e)) throw e;
        // An aggregate overflowed: the group has no row (its members stay, and it comes back once it fits).
        this.leftOut(v, 'group', viewKey ?? g, e);
        delete state.r;
      }
      stateOut.push({ key: 's' + g, mutations: [stateCell(JSON.stringify(state))] });
      if (viewKey !== undefined) dataOut.push({ key: viewKey, mutations: cells ?? [{ kind: 'deleteFromRow' }] });
    }
    await this.write(v.state, stateOut);
    await this.write(v.data, dataOut);
  }

  /** A group's aggregate results after a batch: in place, folded into its last results, or from its members. */
  private async groupResults(v: LiveView, g: ByteString, d: GroupDelta, state: GroupState): Promise<SqlValue[]> {
    const agg = v.def.analyzed.aggregate!;
    const results: SqlValue[] = agg.aggregates.map((a, i) => (v.def.inPlace[i] ? inPlaceResult(a.fn.name, state.acc[i]!) : null));
    const last = state.r;
    if (d.removed.length === 0 && last !== undefined && v.def.inPlace.every((p, i) => p || v.def.mergeable[i])) {
      // The group only gained members: they fold into its last results, no member need be read.
      agg.aggregates.forEach((a, i) => {
        if (v.def.inPlace[i]) return;
        const acc = a.fn.create(a.type);
        acc.add([fromStored(last[i] ?? null)]);
        for (const added of d.added) acc.add(added[i]!.map(fromStored));
        results[i] = acc.result();
      });
    } else if (v.def.inPlace.some((p) => !p)) {
      const accs = agg.aggregates.map((a, i) => (v.def.inPlace[i] ? undefined : a.fn.create(a.type)));
      const prefix = 'g' + g;
      for await (const member of this.scan(v.state, { start: prefix, end: prefixSuccessor(prefix) })) addMember(accs, member);
      accs.forEach((acc, i) => {
        if (acc !== undefined) results[i] = acc.result();
      });
    }
    return results;
  }

  private applyInPlace(v: LiveView, state: GroupState, args: Contribution['a'], sign: bigint): void {
    const agg = v.def.analyzed.aggregate!;
    agg.aggregates.forEach((a, i) => {
      const s = state.acc[i];
      if (s === null || s === undefined) return;
      const x = args[i]?.[0] === undefined ? undefined : fromStored(args[i]![0]!);
      if (a.fn.name !== '$count_star' && (x === null || x === undefined)) return;
      s.c = (BigInt(s.c) + sign).toString();
      if (a.fn.name === 'SUM') s.v = (BigInt(s.v) + sign * (x as bigint)).toString();
      else if (a.fn.name === 'BIT_XOR') s.v = BigInt.asIntN(64, BigInt(s.v) ^ (x as bigint)).toString();
    });
  }

  /** The result columns of a group: the query's projection over `[group keys..., aggregate results...]`. */
  private project(v: LiveView, keys: readonly SqlValue[], results: readonly SqlValue[]): SqlValue[] {
    const q = v.def.analyzed;
    const row = [...keys, ...results];
    return q.projection.slice(0, q.columns.length).map((p) => evaluate(p, row, ENV));
  }

  /** A group's row key in `data`: its raw `_key` (none when NULL or empty), else its encoding. */
  private groupViewKey(v: LiveView, g: ByteString, keys: readonly SqlValue[]): ByteString | undefined {
    if (!v.def.rawKey) return g;
    const k = keys[0] ?? null;
    if (k === null) return undefined;
    const raw = typeof k === 'string' ? fromUtf8(k) : fromBytes(k as Uint8Array);
    return raw === '' ? undefined : raw;
  }

  /** A view row's mutations: clear the row, then one cell per non-NULL column (the raw key has none). */
  private viewCells(v: LiveView, values: readonly SqlValue[]): Mutation[] {
    const out: Mutation[] = [{ kind: 'deleteFromRow' }];
    v.def.columns.forEach((c, j) => {
      if (j === 0 && v.def.rawKey) return;
      const bytes = cellBytes(values[v.def.resultIndex[j]!]!, c.type);
      if (bytes !== undefined) out.push(setCell(DATA_FAMILY, fromUtf8(c.name), bytes));
    });
    return out;
  }

  private async write(table: TableName, entries: readonly RowMutation[]): Promise<void> {
    if (entries.length === 0) return;
    const results = await this.db.mutateRows(table, entries);
    const failed = results.find((r) => r !== undefined);
    if (failed !== undefined) throw failed;
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
    await this.fill(v, target);
    await this.db.switchMaterializedView(v.info.name, v.info.uid, next);
    const old = v.generation;
    v.generation = next;
    v.data = target.data;
    v.state = target.state;
    this.retire(v, old);
  }

  private async fill(v: LiveView, target: { readonly data: TableName; readonly state: TableName }): Promise<void> {
    const state: RowMutation[] = [];
    const data: RowMutation[] = [];
    const flush = async (force: boolean): Promise<void> => {
      const full = state.length >= BATCH || data.length >= BATCH;
      if (force || state.length >= BATCH) await this.write(target.state, state.splice(0));
      if (force || data.length >= BATCH) await this.write(target.data, data.splice(0));
      if (full || force) await this.options.onBuildBatch?.(v.info.name.id);
    };
    const agg = v.def.analyzed.aggregate;
    const groups = new Map<ByteString, { state: GroupState; accs: (Accumulator | undefined)[]; failed?: unknown }>();
    for await (const row of this.scan(v.def.source, FULL_RANGE, v)) {
      const values = this.scanValues(v, row);
      if (agg === undefined) {
        const index = this.indexRow(v, row.key, values);
        if (index === undefined) continue;
        data.push({ key: index.key, mutations: this.viewCells(v, index.values) });
        state.push({ key: 'r' + row.key, mutations: [stateCell(index.key)] });
      } else {
        const c = this.contribution(v, row.key, values);
        if (c === undefined) continue;
        state.push({ key: 'r' + row.key, mutations: [stateCell(JSON.stringify(c))] });
        state.push({ key: 'g' + c.g + row.key, mutations: [stateCell(JSON.stringify(c.a))] });
        let group = groups.get(c.g);
        if (group === undefined) {
          group = {
            state: { k: [...c.k], n: 0, acc: v.def.inPlace.map((p) => (p ? { c: '0', v: '0' } : null)) },
            accs: agg.aggregates.map((a, i) => (v.def.inPlace[i] ? undefined : a.fn.create(a.type))),
          };
          groups.set(c.g, group);
        }
        group.state.n++;
        this.applyInPlace(v, group.state, c.a, 1n);
        try {
          if (group.failed === undefined) group.accs.forEach((acc, i) => acc?.add(c.a[i]!.map(fromStored)));
        } catch (e) {
          if (!isEvalError(e)) throw e;
          group.failed = e;
        }
      }
      await flush(false);
    }
    if (agg !== undefined) {
      for (const [g, group] of groups) {
        const keys = group.state.k.map(fromStored);
        const viewKey = this.groupViewKey(v, g, keys);
        try {
          if (group.failed !== undefined) throw group.failed;
          const results = agg.aggregates.map((a, i) =>
            v.def.inPlace[i] ? inPlaceResult(a.fn.name, group.state.acc[i]!) : group.accs[i]!.result(),
          );
          const cells = this.viewCells(v, this.project(v, keys, results));
          group.state.r = results.map((x, i) => (v.def.inPlace[i] ? null : toStored(x)));
          if (viewKey !== undefined) data.push({ key: viewKey, mutations: cells });
        } catch (e) {
          if (!isEvalError(e)) throw e;
          this.leftOut(v, 'group', viewKey ?? g, e);
        }
        state.push({ key: 's' + g, mutations: [stateCell(JSON.stringify(group.state))] });
        await flush(false);
      }
    }
    await flush(true);
  }

  // ---- reading a view ----

  private source(instance: InstanceName, id: string): MaterializedSource | undefined {
    const v = this.views.get(viewKey({ ...instance, id }));
    if (v === undefined) return undefined;
    if (!this.exists(v)) {
      this.unregister(v);
      return undefined;
    }
    return {
      columns: v.def.columns,
      fingerprint: v.info.uid,
      rows: (signal) => this.viewRows(v, signal),
    };
  }

  private async *viewRows(v: LiveView, signal: AbortSignal | undefined): AsyncGenerator<readonly SqlValue[]> {
    const slot = new Map(v.def.columns.map((c, j) => [fromUtf8(c.name), j]));
    for await (const row of this.scan(v.data, FULL_RANGE)) {
      if (signal?.aborted === true) return;
      const out: SqlValue[] = v.def.columns.map(() => null);
      if (v.def.rawKey) {
        const key = new Uint8Array(toBytes(row.key));
        out[0] = v.def.columns[0]!.type.kind === 'STRING' ? toUtf8(row.key) : key;
      }
      for (const cell of row.cells) {
        const j = slot.get(cell.qualifier);
        if (j !== undefined && cell.family === DATA_FAMILY) out[j] = fromCellBytes(cell.value, v.def.columns[j]!.type);
      }
      yield out;
    }
  }
}

/** How a view's source rows are read: family slots and group key types. */
function shapeOf(def: ViewDefinition): Pick<LiveView, 'slotOf' | 'groupTypes'> {
  const q = def.analyzed;
  return {
    slotOf: new Map(def.families.map((i) => [q.families[i]!.name, i + 1])),
    groupTypes: q.aggregate?.groups.map((g) => g.type) ?? [],
  };
}

function addMember(accs: readonly (Accumulator | undefined)[], member: Row): void {
  const cell = member.cells[0];
  if (cell === undefined) return;
  const args = JSON.parse(Buffer.from(cell.value).toString('utf8')) as Stored[][];
  accs.forEach((acc, i) => acc?.add(args[i]!.map(fromStored)));
}

function inPlaceResult(fn: string, s: { c: string; v: string }): SqlValue {
  const c = BigInt(s.c);
  if (fn === '$count_star' || fn === 'COUNT') return c;
  return c === 0n ? null : checkedInt64(BigInt(s.v));
}

function setCell(family: string, qualifier: ByteString, value: Uint8Array): Mutation {
  return { kind: 'setCell', family, qualifier, timestamp: SERVER_TIME, value };
}

function stateCell(text: string): Mutation {
  return setCell(STATE_FAMILY, STATE_QUALIFIER, Buffer.from(text, 'utf8'));
}

function tableKey(t: TableName): string {
  return `${t.project}/${t.instance}/${t.table}`;
}

function viewKey(n: InstanceName & { readonly id: string }): string {
  return `${n.project}/${n.instance}/${n.id}`;
}
