import type { Config } from '../config.js';
import type { AccessRecorder, TableAccess, TableSize, TabletopDatabase } from '../db/index.js';
import type { ByteString } from '../model/bytes.js';
import type { Clock } from '../model/clock.js';
import { notFound } from '../model/errors.js';
import { type TableName, tableNameString } from '../model/names.js';
import type { StorageEngine } from '../storage/store.js';
import { type Column, addInto, newColumn } from './column.js';
import { type HistorySource, MAX_KEY_SAMPLES } from './history-source.js';
import { HistoryStore } from './history-store.js';
import { type BoundarySet, MAX_BUCKETS, buildBoundaries, shouldRecompute } from './key-buckets.js';
import { TableRecorder } from './table-recorder.js';
import { type ClosedColumn, type TierSpec, TierRollup, tierSpecs } from './tiers.js';

/** `column`'s figures (its time span) over the buckets of `onto` (part B's re-binning, rebin.ts). */
export type RebinColumn = (column: Column, from: BoundarySet, onto: BoundarySet) => Column;

/** Bucket-slots of all open columns together (every table, every tier): tables beyond it get coarser boundary sets. */
export const MAX_OPEN_SLOTS = 200_000;
/** Tables of at most this many rows get exact boundary sets (every row a point). */
const EXACT_UP_TO_ROWS = 2000;
/** Samples per bucket asked of a sampled key distribution. */
const SAMPLES_PER_BUCKET = 4;
const EXPIRE_EVERY_MILLIS = 60_000;
/**
 * A table past EXACT_UP_TO_ROWS gets a new set at most once per this many finest buckets (a minute by default),
 * counted from its first set: its distribution walks the stores' samples and every memtable row (~30 ms for 100,000
 * rows), which a bulk load must not pay for at its first column.
 */
const SAMPLED_EVERY_BUCKETS = 6;

export interface InsightOptions {
  readonly clock: Clock;
  /** insightBucketMillis (the finest tier) and insightMaxHistoryBytes (the history's budget). */
  readonly config: Pick<Config, 'insightBucketMillis' | 'insightMaxHistoryBytes'>;
  /** Re-binning onto a newer boundary set; by default there is none and a set change inside a coarser column is an error. */
  readonly rebinColumn?: RebinColumn;
  /** Bucket-slots of all open columns together (default MAX_OPEN_SLOTS). */
  readonly maxOpenSlots?: number;
  /** Period of the timer that rolls the columns; false: none (tests call tick()). Default 1 s. */
  readonly tickMillis?: number | false;
  /** Failures of background work (writes of history, key distributions); default stderr. */
  readonly onError?: (e: unknown) => void;
}

/** What start() needs of the database it records. */
export type InsightDatabase = Pick<TabletopDatabase, 'keyDistribution' | 'tableSize' | 'listTablets'>;

/** A closed column on its way to the store: queries take it from here until the write is done. */
interface Pending {
  readonly closed: ClosedColumn;
  written: boolean;
}

/** One recorded table. */
class TableState {
  readonly recorder: TableRecorder;
  readonly rollup: TierRollup;
  /** Sets the open columns and the recorder use (older ones are read from the store). */
  readonly sets = new Map<number, BoundarySet>();
  nextSetId: number;
  setAtMillis = 0;
  rowsAtSet = 0;
  exactAtSet = true;
  tablets = '';
  wroteSinceSet = false;
  recomputeQueued = false;
  largestRows: readonly { readonly key: ByteString; readonly bytes: number }[] = [];
  keySamples: readonly ByteString[] = [];
  readonly pending: Pending[] = [];

  constructor(
    readonly uid: string,
    readonly name: TableName,
    clock: Clock,
    specs: readonly TierSpec[],
    rebin: (column: Column, onto: Column) => Column,
  ) {
    const first: BoundarySet = { setId: 1, starts: [''], rows: [0], bytes: [0], estimated: false };
    this.sets.set(1, first);
    this.nextSetId = 2;
    this.recorder = new TableRecorder(uid, name, clock, specs[0]!.millis, first);
    this.rollup = new TierRollup(specs, rebin);
  }

  useSet(set: BoundarySet, nowMillis: number): void {
    this.sets.set(set.setId, set);
    this.nextSetId = Math.max(this.nextSetId, set.setId + 1);
    this.recorder.setBoundaries(set);
    this.setAtMillis = nowMillis;
    this.rowsAtSet = set.rows.reduce((a, b) => a + b, 0);
    this.exactAtSet = !set.estimated;
    this.wroteSinceSet = false;
  }

  /** Bucket-slots of its open columns. */
  openSlots(): number {
    let n = this.recorder.openColumn?.buckets ?? 0;
    for (const c of this.rollup.openColumns()) n += c.column.buckets;
    return n;
  }

  /** Drops the sets no open column or recorder refers to. */
  pruneSets(): void {
    const keep = new Set<number>([this.recorder.boundaries.setId]);
    const open = this.recorder.openColumn;
    if (open !== undefined) keep.add(open.setId);
    for (const c of this.rollup.openColumns()) keep.add(c.column.setId);
    for (const id of this.sets.keys()) if (!keep.has(id)) this.sets.delete(id);
  }
}

/**
 * The recording: db's AccessRecorder (a TableRecorder per table) and the
 * HistorySource the heatmap and diagnostics read. A timer (1 s, unref'd)
 * rolls each table's finest column once its time is over, folds it into the
 * coarser tiers (TierRollup) and writes what closed to the history store; it
 * also decides when a table's boundary set is remade (key-buckets.ts
 * shouldRecompute), which happens off the request path, one table at a time,
 * from TabletopDatabase.keyDistribution. Open columns exist only for tables
 * with traffic; their bucket-slots are kept under `maxOpenSlots` by giving
 * tables coarser sets (`maxOpenSlots / (tiers × active tables)` buckets).
 *
 * Lifecycle: construct, pass as CreateDatabaseOptions.access (the database
 * opens its tables through openTable), then `start(db, engine)` (opens the
 * `_insight` store, loads the newest boundary sets, starts the timer), and
 * `close()` before the database closes (writes the open columns).
 */
export class Insight implements AccessRecorder, HistorySource {
  readonly tiers: readonly TierSpec[];
  private readonly tables = new Map<string, TableState>();
  private readonly clock: Clock;
  private readonly rebinColumn: RebinColumn;
  private readonly maxOpenSlots: number;
  private readonly onError: (e: unknown) => void;
  private db: InsightDatabase | undefined;
  private history: HistoryStore | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Store writes, in order. */
  private writes: Promise<void> = Promise.resolve();
  private readonly recomputeQueue: TableState[] = [];
  private recomputing: Promise<void> | undefined;
  private ticking: Promise<void> | undefined;
  private lastExpire = 0;
  /** Tables with open columns at the last tick (their count sets each table's share of the slots). */
  private activeTables = 0;
  private closed = false;

  constructor(private readonly options: InsightOptions) {
    this.clock = options.clock;
    this.tiers = tierSpecs(options.config.insightBucketMillis);
    this.rebinColumn = options.rebinColumn ?? noRebin;
    this.maxOpenSlots = options.maxOpenSlots ?? MAX_OPEN_SLOTS;
    this.onError = options.onError ?? ((e) => console.error('tabletop: insight recording failed:', e));
  }

  // ---- AccessRecorder ----

  openTable(uid: string, name: TableName): TableAccess {
    const state = new TableState(uid, name, this.clock, this.tiers, (column, onto) => this.rebinOnto(state, column, onto));
    state.setAtMillis = this.nowMillis();
    this.tables.set(uid, state);
    const history = this.history;
    if (history !== undefined) {
      const first = state.recorder.boundaries;
      this.enqueueWrite(async () => {
        await history.writeTable(uid, name);
        await history.writeBoundarySet(uid, first);
      });
    }
    return state.recorder;
  }

  dropTable(uid: string): void {
    this.tables.delete(uid);
    const history = this.history;
    if (history !== undefined) this.enqueueWrite(() => history.dropTable(uid));
  }

  // ---- lifecycle ----

  /** Opens the history in `engine`'s `_insight` store, drops the history of tables gone meanwhile, and starts the timer. */
  async start(db: InsightDatabase, engine: StorageEngine): Promise<void> {
    this.db = db;
    const history = await HistoryStore.open(engine, this.tiers, this.options.config.insightMaxHistoryBytes);
    this.history = history;
    const known = await history.tables();
    for (const uid of known.keys()) if (!this.tables.has(uid)) await history.dropTable(uid);
    const now = this.nowMillis();
    for (const state of this.tables.values()) {
      if (!known.has(state.uid)) await history.writeTable(state.uid, state.name);
      const newest = await history.newestBoundarySet(state.uid);
      if (newest !== undefined) state.useSet(newest, now);
      else await history.writeBoundarySet(state.uid, state.recorder.boundaries);
      state.tablets = this.tabletsOf(state);
    }
    this.lastExpire = now;
    const every = this.options.tickMillis ?? 1000;
    if (every !== false) {
      this.timer = setInterval(() => void this.tick(), every);
      this.timer.unref();
    }
  }

  /**
   * One round of the timer: closes the finest columns whose time is over,
   * rolls them into the coarser tiers, writes what closed, queues boundary
   * recomputes, expires old history once a minute. Resolves once the round's
   * work is queued (idle() waits for the writes).
   */
  tick(): Promise<void> {
    this.ticking ??= Promise.resolve()
      .then(() => this.roll())
      .finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Waits until the queued writes and recomputes are done (tests, close). */
  async idle(): Promise<void> {
    for (;;) {
      const w = this.writes;
      const r = this.recomputing;
      await Promise.all([w, r]);
      if (w === this.writes && r === this.recomputing) return;
    }
  }

  /** Stops the timer and writes every open column (call before the database closes). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.ticking;
    this.recomputeQueue.length = 0;
    await this.recomputing;
    const now = this.nowMillis();
    for (const state of this.tables.values()) {
      const closed = this.fold(state, state.recorder.flush(), undefined);
      closed.push(...state.rollup.drain());
      this.persist(state, closed, now);
    }
    await this.idle();
    await this.history?.close();
  }

  /** Open bucket-slots and encoded history bytes (for the memory bound). */
  stats(): { readonly tables: number; readonly openSlots: number; readonly historyBytes: number } {
    let openSlots = 0;
    for (const s of this.tables.values()) openSlots += s.openSlots();
    return { tables: this.tables.size, openSlots, historyBytes: this.history?.bytes ?? 0 };
  }

  // ---- HistorySource ----

  nowMillis(): number {
    return this.clock.nowMicros() / 1000;
  }

  async columns(table: TableName, tier: number, fromMillis: number, toMillis: number): Promise<readonly Column[]> {
    const state = this.state(table);
    const overlaps = (c: Column): boolean => c.startMillis < toMillis && c.startMillis + c.durationMillis > fromMillis;
    // Unwritten columns first: the store's scan, opened right after, sees the ones already written.
    const pending = state.pending.filter((p) => !p.written && p.closed.tier === tier).map((p) => p.closed.column);
    const stored = this.history === undefined ? [] : await this.history.columns(state.uid, tier, fromMillis, toMillis);
    const live: Column[] = [];
    if (tier === 0) {
      const open = state.recorder.openColumn;
      if (open !== undefined) live.push(open);
    } else {
      for (const c of state.rollup.openColumns()) if (c.tier === tier) live.push(c.column);
    }
    const byStart = new Map<number, Column>();
    for (const c of stored) byStart.set(c.startMillis, c);
    for (const c of [...pending, ...live]) {
      if (!overlaps(c)) continue;
      const held = byStart.get(c.startMillis);
      byStart.set(c.startMillis, held !== undefined && held.setId === c.setId ? summed(held, c) : c);
    }
    return [...byStart.values()].filter(overlaps).sort((a, b) => a.startMillis - b.startMillis);
  }

  async boundarySet(table: TableName, setId: number): Promise<BoundarySet | undefined> {
    const state = this.state(table);
    return state.sets.get(setId) ?? (await this.history?.boundarySet(state.uid, setId));
  }

  currentBoundaries(table: TableName): Promise<BoundarySet> {
    return Promise.resolve(this.state(table).recorder.boundaries);
  }

  largestRows(table: TableName): Promise<readonly { readonly key: string; readonly bytes: number }[]> {
    return Promise.resolve(this.state(table).largestRows);
  }

  keySamples(table: TableName): Promise<readonly string[]> {
    return Promise.resolve(this.state(table).keySamples);
  }

  writeOrder(table: TableName): Promise<readonly string[]> {
    return Promise.resolve(this.state(table).recorder.writeOrder.keys());
  }

  hotRows(table: TableName): Promise<readonly string[]> {
    const state = this.state(table);
    const tablets = this.db?.listTablets(state.name) ?? [];
    return Promise.resolve(tablets.flatMap((t) => (t.singleRowHotspot === undefined ? [] : [t.singleRowHotspot.key])));
  }

  // ---- the timer's work ----

  /**
   * Rolls closed finest columns into the coarser tiers, oldest first (`now`:
   * also close the coarser columns whose time is over when none came). A fold
   * that fails (no re-binning) still keeps the finest column.
   */
  private fold(state: TableState, cols: readonly Column[], now: number | undefined): ClosedColumn[] {
    const closed: ClosedColumn[] = [];
    for (const col of cols) {
      try {
        closed.push(...state.rollup.add(col));
      } catch (e) {
        this.onError(e);
        closed.push({ tier: 0, column: col });
      }
    }
    if (cols.length === 0 && now !== undefined) closed.push(...state.rollup.advance(now));
    return closed;
  }

  private roll(): void {
    if (this.closed) return;
    const now = this.nowMillis();
    let active = 0;
    let slots = 0;
    for (const state of this.tables.values()) {
      const cols = state.recorder.roll();
      const closed = this.fold(state, cols, now);
      if (closed.length > 0) this.persist(state, closed, now);
      if (cols.length > 0) {
        if (cols.some((c) => c.counters.write_ops.some((v) => v > 0))) state.wroteSinceSet = true;
        this.considerRecompute(state, now);
      }
      const n = state.openSlots();
      if (n > 0) {
        active++;
        slots += n;
      }
      if (closed.length > 0) state.pruneSets();
    }
    this.activeTables = active;
    if (slots > this.maxOpenSlots) this.coarsen();
    if (now - this.lastExpire >= EXPIRE_EVERY_MILLIS && this.history !== undefined) {
      this.lastExpire = now;
      const history = this.history;
      this.enqueueWrite(() => history.expire(now));
    }
  }

  /** Buckets a table's new set may have: its share of the open slots over every tier. */
  private bucketShare(): number {
    return Math.max(1, Math.min(MAX_BUCKETS, Math.floor(this.maxOpenSlots / (this.tiers.length * Math.max(1, this.activeTables)))));
  }

  /** Over the slot budget: the tables whose current set is above their share get coarser sets. */
  private coarsen(): void {
    const share = this.bucketShare();
    for (const state of this.tables.values()) {
      if (state.recorder.boundaries.starts.length > share) this.queueRecompute(state);
    }
  }

  private considerRecompute(state: TableState, now: number): void {
    if (this.db === undefined || state.recomputeQueued) return;
    let size: TableSize;
    try {
      size = this.db.tableSize(state.name);
    } catch {
      return; // deleted meanwhile
    }
    const recompute = shouldRecompute({
      rows: size.rows,
      rowsAtSet: state.rowsAtSet,
      exactAtSet: state.exactAtSet,
      tabletsChanged: size.tabletIds.join(',') !== state.tablets,
      wroteSinceSet: state.wroteSinceSet,
      nowMillis: now,
      setAtMillis: state.setAtMillis,
    });
    const sampledTooSoon = size.rows > EXACT_UP_TO_ROWS && now - state.setAtMillis < SAMPLED_EVERY_BUCKETS * this.tiers[0]!.millis;
    if ((recompute && !sampledTooSoon) || state.recorder.boundaries.starts.length > this.bucketShare()) this.queueRecompute(state);
  }

  private queueRecompute(state: TableState): void {
    if (state.recomputeQueued || this.db === undefined) return;
    state.recomputeQueued = true;
    this.recomputeQueue.push(state);
    this.recomputing ??= this.recomputeAll().finally(() => (this.recomputing = undefined));
  }

  /** Remakes the queued tables' boundary sets, one table at a time. */
  private async recomputeAll(): Promise<void> {
    for (let state = this.recomputeQueue.shift(); state !== undefined; state = this.recomputeQueue.shift()) {
      try {
        await this.recompute(state);
      } catch (e) {
        if (this.tables.get(state.uid) === state) this.onError(e);
      } finally {
        state.recomputeQueued = false;
      }
    }
  }

  private async recompute(state: TableState): Promise<void> {
    const db = this.db;
    if (db === undefined || this.tables.get(state.uid) !== state) return;
    const maxBuckets = this.bucketShare();
    const size = db.tableSize(state.name);
    const dist = await db.keyDistribution(state.name, {
      exactUpToRows: EXACT_UP_TO_ROWS,
      bytesPerPiece: Math.max(256, Math.ceil(size.storedBytes / (SAMPLES_PER_BUCKET * maxBuckets))),
    });
    if (this.closed || this.tables.get(state.uid) !== state) return;
    const set = buildBoundaries(dist, state.nextSetId, maxBuckets);
    state.useSet(set, this.nowMillis());
    state.rowsAtSet = dist.rows;
    state.exactAtSet = dist.exact;
    state.tablets = size.tabletIds.join(',');
    if (dist.exact) state.largestRows = dist.largestRows;
    state.keySamples = spreadKeys(dist.points, MAX_KEY_SAMPLES);
    const history = this.history;
    if (history !== undefined) this.enqueueWrite(() => history.writeBoundarySet(state.uid, set));
  }

  private persist(state: TableState, closed: readonly ClosedColumn[], now: number): void {
    const history = this.history;
    if (history === undefined || closed.length === 0) return;
    const entries: Pending[] = closed.map((c) => ({ closed: c, written: false }));
    state.pending.push(...entries);
    this.enqueueWrite(async () => {
      try {
        if (this.tables.get(state.uid) !== state) return; // dropped: its history is gone
        await history.writeColumns(state.uid, closed, now, (held, fresh) => this.mergeHeld(state, held, fresh));
      } finally {
        for (const e of entries) {
          e.written = true;
          const i = state.pending.indexOf(e);
          if (i >= 0) state.pending.splice(i, 1);
        }
      }
    });
  }

  /** A column of a time bucket the history already holds (written before a restart) and the fresh one: their sum. */
  private mergeHeld(state: TableState, held: Column, fresh: Column): Column {
    if (held.setId === fresh.setId) return summed(held, fresh);
    const from = state.sets.get(held.setId);
    const onto = state.sets.get(fresh.setId);
    if (from === undefined || onto === undefined) return fresh;
    try {
      return summed(this.rebinColumn(held, from, onto), fresh);
    } catch (e) {
      this.onError(e);
      return fresh;
    }
  }

  /** TierRollup's re-binning: `column` over the set of `onto`. */
  private rebinOnto(state: TableState, column: Column, onto: Column): Column {
    const from = state.sets.get(column.setId);
    const to = state.sets.get(onto.setId);
    if (from === undefined || to === undefined) {
      throw new RangeError(`insight: boundary set ${from === undefined ? column.setId : onto.setId} of table ${state.uid} is not at hand`);
    }
    return this.rebinColumn(column, from, to);
  }

  private enqueueWrite(work: () => Promise<void>): void {
    this.writes = this.writes.then(work).catch((e: unknown) => this.onError(e));
  }

  private tabletsOf(state: TableState): string {
    try {
      return this.db?.tableSize(state.name).tabletIds.join(',') ?? '';
    } catch {
      return '';
    }
  }

  private state(table: TableName): TableState {
    const want = tableNameString(table);
    for (const s of this.tables.values()) if (tableNameString(s.name) === want) return s;
    throw notFound(`table ${want} not found`);
  }
}

/** A new column: `a` plus `b` (same set and time bucket). */
function summed(a: Column, b: Column): Column {
  const out = newColumn(a.startMillis, a.durationMillis, a.setId, a.buckets);
  addInto(out, a);
  addInto(out, b);
  return out;
}

function noRebin(column: Column, from: BoundarySet, onto: BoundarySet): Column {
  throw new RangeError(`no re-binning: column of set ${from.setId} onto set ${onto.setId} (at ${column.startMillis})`);
}

/** At most `max` of the points' keys, evenly spread, ascending ('' left out: the table's start, not a row). */
export function spreadKeys(points: readonly { readonly key: ByteString }[], max: number): ByteString[] {
  const keys = points.map((p) => p.key).filter((k) => k !== '');
  if (keys.length <= max) return keys;
  return Array.from({ length: max }, (_, i) => keys[Math.floor((i * keys.length) / max)]!);
}
