import type { TableName } from '../model/names.js';
import type { RowStore, RowWrite, StorageEngine, StoreOp } from '../storage/store.js';
import type { Column } from './column.js';
import {
  columnSetId,
  decodeBoundarySet,
  decodeColumn,
  decodeTableName,
  encodeBoundarySet,
  encodeColumn,
  encodeTableName,
} from './history-codec.js';
import type { BoundarySet } from './key-buckets.js';
import { type ClosedColumn, type TierSpec, retentionStart } from './tiers.js';

/** The engine store insight keeps its history in (a system store: db's SYSTEM_STORE_PREFIX '_'). */
export const HISTORY_STORE_ID = '_insight';

const FAMILY = 'h';
const QUALIFIER = 'v';
/** Digits of a column's start (milliseconds since the epoch) in its key: ascending keys are ascending times. */
const START_DIGITS = 13;
/** Digits of a set id in its key, so that the newest set of a table sorts last. */
const SET_DIGITS = 10;

const columnPrefix = (uid: string, tier?: number): string => (tier === undefined ? `c/${uid}/` : `c/${uid}/${tier}/`);
const columnKey = (uid: string, tier: number, start: number): string => `${columnPrefix(uid, tier)}${pad(start, START_DIGITS)}`;
const setPrefix = (uid: string): string => `b/${uid}/`;
const setKey = (uid: string, setId: number): string => `${setPrefix(uid)}${pad(setId, SET_DIGITS)}`;
const tableKey = (uid: string): string => `t/${uid}`;

/** The history of one table in one tier: starts ascending, with the encoded size and the boundary set of each column. */
interface TierIndex {
  starts: number[];
  sizes: number[];
  setIds: number[];
}

interface TableIndex {
  readonly tiers: TierIndex[];
  /** The boundary sets held, ids ascending, with their encoded sizes. */
  readonly sets: number[];
  readonly setSizes: number[];
  /** Encoded bytes of its columns and sets. */
  bytes: number;
}

/**
 * Closed columns and boundary sets of every table, in a RowStore of the
 * engine (`_insight`): durable on the disk engine (commit log, memtable,
 * SSTables, compaction), in memory on the memory engine, with no file format
 * of its own. Rows:
 *   c/<uid>/<tier>/<start, 13 digits>   one column (history-codec.ts)
 *   b/<uid>/<setId, 10 digits>          one boundary set
 *   t/<uid>                             the table's name
 * An index of every column's start and size is kept in memory (read once at
 * open) for expiry and the byte budget: a write of columns also deletes, in
 * the same store write, the columns that fell out of their tier's retention
 * and, once the history (columns and sets) is over `maxBytes`, the oldest
 * columns of the largest histories (down to 90% of the budget); a set older
 * than every column of its table goes with them (the newest set stays).
 */
export class HistoryStore {
  private readonly index = new Map<string, TableIndex>();
  private totalBytes = 0;
  private closed = false;

  /** The store, once it exists: it is made at the first write, so that a data directory without tables has none. */
  private store: RowStore | undefined;
  private opening: Promise<RowStore> | undefined;

  private constructor(
    private readonly engine: StorageEngine,
    private readonly specs: readonly TierSpec[],
    private readonly maxBytes: number,
  ) {}

  static async open(engine: StorageEngine, specs: readonly TierSpec[], maxBytes: number): Promise<HistoryStore> {
    const h = new HistoryStore(engine, specs, maxBytes);
    if (engine.storeIds().includes(HISTORY_STORE_ID)) {
      h.store = await engine.openStore(HISTORY_STORE_ID);
      await h.load();
    }
    return h;
  }

  /** Encoded bytes of every column and boundary set held (what the budget bounds). */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Table uids with a name row, and their names (what was recorded, live or not). */
  async tables(): Promise<Map<string, TableName>> {
    const out = new Map<string, TableName>();
    for (const row of await this.rows('t/', 't0')) out.set(row.key.slice(2), decodeTableName(row.value));
    return out;
  }

  writeTable(uid: string, name: TableName): Promise<void> {
    return this.put([{ key: tableKey(uid), ops: putOps(encodeTableName(name)) }]);
  }

  writeBoundarySet(uid: string, set: BoundarySet): Promise<void> {
    const value = encodeBoundarySet(set);
    const t = this.tableIndex(uid);
    const i = bisect(t.sets, set.setId);
    if (t.sets[i] === set.setId) {
      this.account(t, value.length - t.setSizes[i]!);
      t.setSizes[i] = value.length;
    } else {
      t.sets.splice(i, 0, set.setId);
      t.setSizes.splice(i, 0, value.length);
      this.account(t, value.length);
    }
    return this.put([{ key: setKey(uid, set.setId), ops: putOps(value) }]);
  }

  async boundarySet(uid: string, setId: number): Promise<BoundarySet | undefined> {
    const key = setKey(uid, setId);
    const rows = await this.rows(key, `${key}\0`);
    return rows[0] === undefined ? undefined : decodeBoundarySet(rows[0].value);
  }

  /** The table's set with the highest id. */
  async newestBoundarySet(uid: string): Promise<BoundarySet | undefined> {
    const prefix = setPrefix(uid);
    const rows = await this.rows(prefix, `${prefix.slice(0, -1)}0`, true, 1);
    return rows[0] === undefined ? undefined : decodeBoundarySet(rows[0].value);
  }

  /**
   * Writes closed columns of one table. A column whose time bucket is already
   * held (the same bucket after a restart) is added to it (`merge`). In the
   * same store write: columns out of retention at `nowMillis`, then the oldest
   * of the largest histories while over the byte budget, are deleted.
   */
  async writeColumns(
    uid: string,
    closed: readonly ClosedColumn[],
    nowMillis: number,
    merge: (held: Column, fresh: Column) => Column,
  ): Promise<void> {
    if (closed.length === 0) return;
    const writes: RowWrite[] = [];
    const t = this.tableIndex(uid);
    for (const { tier, column } of closed) {
      let col = column;
      const at = t.tiers[tier]!;
      const i = bisect(at.starts, column.startMillis);
      const held = at.starts[i] === column.startMillis;
      if (held) {
        const old = await this.column(uid, tier, column.startMillis);
        if (old !== undefined) col = merge(old, column);
      }
      const value = encodeColumn(col);
      writes.push({ key: columnKey(uid, tier, col.startMillis), ops: putOps(value) });
      if (held) {
        this.account(t, value.length - at.sizes[i]!);
        at.sizes[i] = value.length;
        at.setIds[i] = col.setId;
      } else {
        at.starts.splice(i, 0, col.startMillis);
        at.sizes.splice(i, 0, value.length);
        at.setIds.splice(i, 0, col.setId);
        this.account(t, value.length);
      }
    }
    this.expireInto(uid, t, nowMillis, writes);
    this.trimInto(writes);
    await this.put(writes);
  }

  /** Deletes every table's columns out of retention at `nowMillis` (for tables without new columns). */
  async expire(nowMillis: number): Promise<void> {
    const writes: RowWrite[] = [];
    for (const [uid, t] of this.index) this.expireInto(uid, t, nowMillis, writes);
    this.trimInto(writes);
    if (writes.length > 0) await this.put(writes);
  }

  /** The columns of `tier` overlapping [fromMillis, toMillis), ascending. */
  async columns(uid: string, tier: number, fromMillis: number, toMillis: number): Promise<Column[]> {
    const spec = this.specs[tier];
    if (spec === undefined || toMillis <= fromMillis) return [];
    const from = Math.max(0, fromMillis - spec.millis + 1);
    const rows = await this.rows(columnKey(uid, tier, from), columnKey(uid, tier, toMillis));
    return rows.map((r) => decodeColumn(r.value)).filter((c) => c.startMillis + c.durationMillis > fromMillis);
  }

  /** Drops a table's whole history (the table was deleted). */
  async dropTable(uid: string): Promise<void> {
    // Row deletes of the keys the index knows, in one write: a dropRange would be a manifest edit and a compaction
    // of the store (a bulk load right after a table's deletion paid ~10% more CPU per row with them).
    const writes: RowWrite[] = [{ key: tableKey(uid), ops: DELETE }];
    const t = this.index.get(uid);
    if (t !== undefined) {
      this.totalBytes -= t.bytes;
      this.index.delete(uid);
      t.tiers.forEach((at, tier) => {
        for (const start of at.starts) writes.push({ key: columnKey(uid, tier, start), ops: DELETE });
      });
      for (const id of t.sets) writes.push({ key: setKey(uid, id), ops: DELETE });
    }
    if (this.store === undefined) return;
    await this.put(writes);
  }

  /** Every table uid with history, with its encoded bytes (columns and sets). */
  historyBytes(): Map<string, number> {
    return new Map([...this.index].map(([uid, t]) => [uid, t.bytes]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.opening;
    await this.store?.close();
  }

  private async column(uid: string, tier: number, start: number): Promise<Column | undefined> {
    const key = columnKey(uid, tier, start);
    const rows = await this.rows(key, `${key}\0`);
    return rows[0] === undefined ? undefined : decodeColumn(rows[0].value);
  }

  private expireInto(uid: string, t: TableIndex, nowMillis: number, writes: RowWrite[]): void {
    for (let tier = 0; tier < t.tiers.length; tier++) {
      const at = t.tiers[tier]!;
      const keepFrom = retentionStart(this.specs[tier]!, nowMillis);
      let n = 0;
      while (n < at.starts.length && at.starts[n]! < keepFrom) {
        writes.push({ key: columnKey(uid, tier, at.starts[n]!), ops: DELETE });
        this.account(t, -at.sizes[n]!);
        n++;
      }
      if (n > 0) {
        at.starts.splice(0, n);
        at.sizes.splice(0, n);
        at.setIds.splice(0, n);
      }
    }
    this.dropUnusedSets(uid, t, writes);
  }

  /** Deletes the sets older than every column's (the newest set always stays: the recorder's). */
  private dropUnusedSets(uid: string, t: TableIndex, writes: RowWrite[]): void {
    let oldest = Infinity;
    for (const at of t.tiers) for (const id of at.setIds) if (id < oldest) oldest = id;
    let n = 0;
    while (n < t.sets.length - 1 && t.sets[n]! < oldest) {
      writes.push({ key: setKey(uid, t.sets[n]!), ops: DELETE });
      this.account(t, -t.setSizes[n]!);
      n++;
    }
    if (n > 0) {
      t.sets.splice(0, n);
      t.setSizes.splice(0, n);
    }
  }

  /**
   * Once over budget, trims the history to TRIM_TO of it (so that trimming is
   * not paid on every write): the largest histories are cut down to one level,
   * each losing its columns that end first (in any tier).
   */
  private trimInto(writes: RowWrite[]): void {
    if (this.totalBytes <= this.maxBytes) return;
    const excess = this.totalBytes - Math.floor(this.maxBytes * TRIM_TO);
    const level = waterLevel(
      [...this.index.values()].map((t) => t.bytes),
      excess,
    );
    for (const [uid, t] of this.index) {
      if (t.bytes <= level) continue;
      while (t.bytes > level) {
        let tier = -1;
        let end = Infinity;
        for (let i = 0; i < t.tiers.length; i++) {
          const s = t.tiers[i]!.starts[0];
          if (s !== undefined && s + this.specs[i]!.millis < end) {
            end = s + this.specs[i]!.millis;
            tier = i;
          }
        }
        if (tier < 0) break;
        const at = t.tiers[tier]!;
        writes.push({ key: columnKey(uid, tier, at.starts[0]!), ops: DELETE });
        this.account(t, -at.sizes[0]!);
        at.starts.shift();
        at.sizes.shift();
        at.setIds.shift();
      }
      this.dropUnusedSets(uid, t, writes);
    }
  }

  private account(t: TableIndex, delta: number): void {
    t.bytes += delta;
    this.totalBytes += delta;
  }

  private tableIndex(uid: string): TableIndex {
    let t = this.index.get(uid);
    if (t === undefined) {
      t = { tiers: this.specs.map(() => ({ starts: [], sizes: [], setIds: [] })), sets: [], setSizes: [], bytes: 0 };
      this.index.set(uid, t);
    }
    return t;
  }

  /** Reads every column's key and size once (at open): the index behind expiry and the budget. */
  private async load(): Promise<void> {
    for (const row of await this.rows('c/', 'c0')) {
      const m = /^c\/([^/]+)\/(\d+)\/(\d+)$/.exec(row.key);
      const tier = Number(m?.[2]);
      if (m === null || !(tier < this.specs.length)) continue;
      const at = this.tableIndex(m[1]!).tiers[tier]!;
      at.starts.push(Number(m[3]));
      at.sizes.push(row.value.length);
      at.setIds.push(columnSetId(row.value));
      this.account(this.index.get(m[1]!)!, row.value.length);
    }
    for (const row of await this.rows('b/', 'b0')) {
      const m = /^b\/([^/]+)\/(\d+)$/.exec(row.key);
      if (m === null) continue;
      const t = this.tableIndex(m[1]!);
      t.sets.push(Number(m[2]));
      t.setSizes.push(row.value.length);
      this.account(t, row.value.length);
    }
  }

  private async rows(start: string, end: string, reverse = false, limit = Infinity): Promise<{ key: string; value: Uint8Array }[]> {
    const out: { key: string; value: Uint8Array }[] = [];
    if (this.store === undefined) return out;
    const cursor = this.store.scan({ range: { start, end }, reverse });
    try {
      while (out.length < limit) {
        let row = cursor.next();
        if (row instanceof Promise) row = await row;
        if (row === undefined) break;
        const cell = row.cells.find((c) => c.family === FAMILY && c.qualifier === QUALIFIER);
        if (cell !== undefined) out.push({ key: row.key, value: cell.value });
      }
    } finally {
      cursor.close();
    }
    return out;
  }

  private async put(writes: readonly RowWrite[]): Promise<void> {
    if (this.closed) return;
    let store = this.store;
    if (store === undefined) {
      this.opening ??= Promise.resolve(this.engine.openStore(HISTORY_STORE_ID));
      store = this.store = await this.opening;
    }
    await store.write(writes);
  }
}

const DELETE: readonly StoreOp[] = [{ kind: 'deleteRow' }];

/** Over budget, the history is trimmed to this share of it. */
const TRIM_TO = 0.9;

/** The highest level L such that cutting every size down to L frees at least `excess` (largest first). */
export function waterLevel(sizes: readonly number[], excess: number): number {
  const desc = [...sizes].sort((a, b) => b - a);
  let above = 0;
  for (let i = 0; i < desc.length; i++) {
    above += desc[i]!;
    const next = desc[i + 1] ?? 0;
    // Cutting the i + 1 largest down to `next` frees above - (i + 1) × next.
    if (above - (i + 1) * next >= excess) return Math.max(next, Math.floor((above - excess) / (i + 1)));
  }
  return 0;
}

function putOps(value: Uint8Array): StoreOp[] {
  return [{ kind: 'deleteRow' }, { kind: 'put', family: FAMILY, qualifier: QUALIFIER, timestamp: 0, value }];
}

function pad(n: number, digits: number): string {
  return String(Math.max(0, Math.floor(n))).padStart(digits, '0');
}

/** The first index whose value is >= v. */
function bisect(sorted: readonly number[], v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
