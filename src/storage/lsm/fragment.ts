/**
 * Row fragments: the unit the durable engine stores per row.
 *
 * A fragment holds versioned entries of one row: cell puts and tombstones,
 * each with its own sequence number. The commit log, the memtable and
 * SSTables all hold rows as fragments; a row's current cells are resolved by
 * merging all its fragments (newer sequence numbers win), so a write never
 * has to read the row first.
 *
 *   fragment := baseSeq:varint count:varint entry{count}
 *   entry    := tag:u8 seqDelta:varint body        (seq = baseSeq + seqDelta)
 *   body     := PUT(1)        family:str qualifier:str timestamp:varint value:bytes
 *             | DEL_COLUMN(2) family:str qualifier:str start:varint endPlusOne:varint (0 = unbounded)
 *             | DEL_FAMILY(3) family:str
 *             | DEL_ROW(4)
 *   str, bytes := length:varint byte{length}
 *
 * Visibility: a put is visible when no tombstone with a higher sequence number
 * covers it (row; family; column and timestamp range; or a store-level family
 * drop or range drop) and no other put at the same (family, qualifier,
 * timestamp) has a higher sequence number.
 *
 * DO NOT CHANGE the tags: they are on disk.
 */
import { type Cell, NO_LABELS } from '../../model/cell.js';
import { dataLoss } from '../../model/errors.js';
import type { StoreOp } from '../store.js';
import { ByteReader } from '../../model/byte-reader.js';
import type { ByteWriter } from '../../model/byte-writer.js';

export const TAG_PUT = 1;
export const TAG_DEL_COLUMN = 2;
export const TAG_DEL_FAMILY = 3;
export const TAG_DEL_ROW = 4;

/** A decoded entry. One shape for all tags (fields unused by a tag are empty). */
export interface Entry {
  readonly tag: number;
  readonly seq: number;
  readonly family: string;
  readonly qualifier: string;
  /** Put: the cell timestamp. DelColumn: range start. */
  readonly ts: number;
  /** DelColumn: range end (exclusive), -1 when unbounded. */
  readonly end: number;
  readonly value: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** Appends the fragment for one atomic row write: op i gets sequence number baseSeq + i. */
export function encodeOps(w: ByteWriter, ops: readonly StoreOp[], baseSeq: number): void {
  w.varint(baseSeq);
  w.varint(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    switch (op.kind) {
      case 'put':
        w.u8(TAG_PUT);
        w.varint(i);
        w.str(op.family);
        w.str(op.qualifier);
        w.varint(op.timestamp);
        w.bytes(op.value);
        break;
      case 'deleteColumn':
        w.u8(TAG_DEL_COLUMN);
        w.varint(i);
        w.str(op.family);
        w.str(op.qualifier);
        w.varint(op.start);
        w.varint(op.end === undefined ? 0 : op.end + 1);
        break;
      case 'deleteFamily':
        w.u8(TAG_DEL_FAMILY);
        w.varint(i);
        w.str(op.family);
        break;
      case 'deleteRow':
        w.u8(TAG_DEL_ROW);
        w.varint(i);
        break;
    }
  }
}

/** The store op an entry records (the inverse of encodeOps, without the sequence number). */
export function entryOp(e: Entry): StoreOp {
  switch (e.tag) {
    case TAG_PUT:
      return { kind: 'put', family: e.family, qualifier: e.qualifier, timestamp: e.ts, value: e.value };
    case TAG_DEL_COLUMN:
      return { kind: 'deleteColumn', family: e.family, qualifier: e.qualifier, start: e.ts, end: e.end < 0 ? undefined : e.end };
    case TAG_DEL_FAMILY:
      return { kind: 'deleteFamily', family: e.family };
    default:
      return { kind: 'deleteRow' };
  }
}

/** Appends a fragment made of already-sequenced entries (flush and compaction output). */
export function encodeEntries(w: ByteWriter, entries: readonly Entry[]): void {
  let base = Infinity;
  for (const e of entries) if (e.seq < base) base = e.seq;
  if (base === Infinity) base = 0;
  w.varint(base);
  w.varint(entries.length);
  for (const e of entries) {
    w.u8(e.tag);
    w.varint(e.seq - base);
    if (e.tag === TAG_DEL_ROW) continue;
    w.str(e.family);
    if (e.tag === TAG_DEL_FAMILY) continue;
    w.str(e.qualifier);
    w.varint(e.ts);
    if (e.tag === TAG_PUT) w.bytes(e.value);
    else w.varint(e.end < 0 ? 0 : e.end + 1);
  }
}

/** The DataLoss error for a malformed fragment at `where`. */
function malformed(where: string, why: string): Error {
  return dataLoss(`${where}: malformed row fragment (${why})`);
}

/** A reader of the fragment `buf`, whose errors name `where`. */
function fragmentReader(buf: Buffer, where: string): ByteReader {
  return new ByteReader(buf, 0, buf.length, (why) => {
    throw malformed(where, why);
  });
}

/** Decodes a fragment; `where` names its location for the DataLoss error on malformed bytes. */
export function decodeFragment(buf: Buffer, where: string, out: Entry[] = []): Entry[] {
  const r = fragmentReader(buf, where);
  const base = r.varint('base sequence');
  const count = r.varint('entry count');
  for (let i = 0; i < count; i++) {
    const tag = r.u8('entry tag');
    const seq = base + r.varint('sequence');
    switch (tag) {
      case TAG_PUT: {
        const family = r.str('family');
        const qualifier = r.str('qualifier');
        const ts = r.varint('timestamp');
        out.push({ tag, seq, family, qualifier, ts, end: -1, value: r.lengthPrefixed('value') });
        break;
      }
      case TAG_DEL_COLUMN: {
        const family = r.str('family');
        const qualifier = r.str('qualifier');
        const ts = r.varint('timestamp');
        const endPlusOne = r.varint('timestamp');
        out.push({ tag, seq, family, qualifier, ts, end: endPlusOne === 0 ? -1 : endPlusOne - 1, value: EMPTY });
        break;
      }
      case TAG_DEL_FAMILY:
        out.push({ tag, seq, family: r.str('family'), qualifier: '', ts: 0, end: -1, value: EMPTY });
        break;
      case TAG_DEL_ROW:
        out.push({ tag, seq, family: '', qualifier: '', ts: 0, end: -1, value: EMPTY });
        break;
      default:
        throw malformed(where, `unknown entry tag ${tag}`);
    }
  }
  if (!r.done) throw malformed(where, 'trailing bytes');
  return out;
}

/**
 * Whether a fragment holds puts only (no tombstones), checked without
 * decoding its strings or values. Such a fragment, the only one of its row
 * in a major compaction with no drops and no GC rules, is kept as it is.
 */
export function fragmentHasOnlyPuts(buf: Buffer, where: string): boolean {
  const r = fragmentReader(buf, where);
  r.varint('base sequence');
  const count = r.varint('entry count');
  for (let i = 0; i < count; i++) {
    if (r.u8('entry tag') !== TAG_PUT) return false;
    r.varint('sequence');
    r.skipLengthPrefixed('family');
    r.skipLengthPrefixed('qualifier');
    r.varint('timestamp');
    r.skipLengthPrefixed('value');
  }
  if (!r.done) throw malformed(where, 'trailing bytes');
  return true;
}

/**
 * Fast path for the common row: one fragment of puts only, in storage order,
 * no two at one coordinate, none above the snapshot. Decodes straight into
 * cells; returns undefined when the fragment is anything else (the caller
 * then resolves it in full).
 */
export function decodePutsOnly(buf: Buffer, snapshotSeq: number, where: string): Cell[] | undefined {
  const r = fragmentReader(buf, where);
  const base = r.varint('base sequence');
  const count = r.varint('entry count');
  const cells = new Array<Cell>(count);
  let prev: Cell | undefined;
  for (let i = 0; i < count; i++) {
    if (r.u8('entry tag') !== TAG_PUT) return undefined;
    if (base + r.varint('sequence') > snapshotSeq) return undefined;
    const family = r.str('family');
    const qualifier = r.str('qualifier');
    const timestamp = r.varint('timestamp');
    const cell: Cell = { family, qualifier, timestamp, value: r.lengthPrefixed('value'), labels: NO_LABELS };
    if (prev !== undefined) {
      if (
        prev.family > family ||
        (prev.family === family && (prev.qualifier > qualifier || (prev.qualifier === qualifier && prev.timestamp <= timestamp)))
      )
        return undefined;
    }
    cells[i] = cell;
    prev = cell;
  }
  if (!r.done) throw malformed(where, 'trailing bytes');
  return cells;
}

/**
 * Deletions that apply to a whole store (tablet) rather than to a row:
 * dropped families and dropped key ranges, each with the sequence number
 * at which it happened. Puts with a lower sequence number are invisible.
 */
export interface StoreDrops {
  /** Highest drop sequence for a family, or 0. */
  familyDropSeq(family: string): number;
  /** Highest range-drop sequence covering the key, or 0. */
  rangeDropSeq(key: string): number;
}

export const NO_DROPS: StoreDrops = { familyDropSeq: () => 0, rangeDropSeq: () => 0 };

/** Entry order for resolution: family, qualifier, timestamp desc, sequence desc. */
function compareEntries(a: Entry, b: Entry): number {
  if (a.family !== b.family) return a.family < b.family ? -1 : 1;
  if (a.qualifier !== b.qualifier) return a.qualifier < b.qualifier ? -1 : 1;
  if (a.ts !== b.ts) return b.ts - a.ts;
  return b.seq - a.seq;
}

/** Tombstones of a row, gathered for visibility checks. */
class Tombstones {
  rowSeq = 0;
  families: Map<string, number> | undefined;
  columns: Entry[] | undefined;

  add(e: Entry): void {
    if (e.tag === TAG_DEL_ROW) {
      if (e.seq > this.rowSeq) this.rowSeq = e.seq;
    } else if (e.tag === TAG_DEL_FAMILY) {
      this.families ??= new Map();
      if (e.seq > (this.families.get(e.family) ?? 0)) this.families.set(e.family, e.seq);
    } else {
      (this.columns ??= []).push(e);
    }
  }

  covers(p: Entry, drops: StoreDrops): boolean {
    if (p.seq < this.rowSeq) return true;
    if (p.seq < drops.familyDropSeq(p.family)) return true;
    if (this.families !== undefined && p.seq < (this.families.get(p.family) ?? 0)) return true;
    if (this.columns !== undefined) {
      for (const c of this.columns) {
        if (c.seq > p.seq && c.family === p.family && c.qualifier === p.qualifier && p.ts >= c.ts && (c.end < 0 || p.ts < c.end))
          return true;
      }
    }
    return false;
  }
}

/**
 * The visible puts of a row given all of its entries (from any number of
 * fragments, in any order), ignoring entries newer than `snapshotSeq`, in
 * storage order (family, qualifier, timestamp descending).
 */
export function visibleEntries(key: string, entries: Entry[], snapshotSeq: number, drops: StoreDrops): Entry[] {
  const tomb = new Tombstones();
  tomb.rowSeq = drops.rangeDropSeq(key);
  let puts = 0;
  let sorted = true;
  let prev: Entry | undefined;
  for (const e of entries) {
    if (e.seq > snapshotSeq) continue;
    if (e.tag !== TAG_PUT) tomb.add(e);
    else {
      puts++;
      if (sorted && prev !== undefined && compareEntries(prev, e) > 0) sorted = false;
      prev = e;
    }
  }
  if (puts === 0) return [];
  let list = entries;
  if (!sorted || puts !== entries.length) {
    list = [];
    for (const e of entries) if (e.tag === TAG_PUT && e.seq <= snapshotSeq) list.push(e);
    if (!sorted) list.sort(compareEntries);
  }
  const out: Entry[] = [];
  let last: Entry | undefined;
  for (const e of list) {
    // Same coordinate as the previous put: it has a lower sequence number and is shadowed.
    if (last !== undefined && last.ts === e.ts && last.qualifier === e.qualifier && last.family === e.family) continue;
    last = e;
    if (!tomb.covers(e, drops)) out.push(e);
  }
  return out;
}

/** The visible cells of a row (see visibleEntries). Values are views into the fragments. */
export function resolveEntries(key: string, entries: Entry[], snapshotSeq: number, drops: StoreDrops): Cell[] {
  const visible = visibleEntries(key, entries, snapshotSeq, drops);
  const cells = new Array<Cell>(visible.length);
  for (let i = 0; i < visible.length; i++) cells[i] = entryCell(visible[i]!);
  return cells;
}

function entryCell(e: Entry): Cell {
  return { family: e.family, qualifier: e.qualifier, timestamp: e.ts, value: e.value, labels: NO_LABELS };
}

/**
 * Merges a row's entries for flush or compaction: drops shadowed puts, and
 * drops tombstones too when `bottommost` (no older data can lie below).
 * `gc` applies garbage collection to the visible cells (only when bottommost,
 * where every version of each column is present); it returns a subset of the
 * cells it is given. Returns the surviving entries (empty: the row vanishes).
 */
export function compactEntries(
  key: string,
  entries: Entry[],
  drops: StoreDrops,
  bottommost: boolean,
  gc?: (cells: readonly Cell[]) => readonly Cell[],
): Entry[] {
  if (bottommost) {
    const visible = visibleEntries(key, entries, Number.MAX_SAFE_INTEGER, drops);
    if (gc === undefined) return visible;
    const byCell = new Map<Cell, Entry>();
    const cells = visible.map((e) => {
      const c = entryCell(e);
      byCell.set(c, e);
      return c;
    });
    return gc(cells).map((c) => byCell.get(c)!);
  }
  const tomb = new Tombstones();
  tomb.rowSeq = drops.rangeDropSeq(key);
  for (const e of entries) if (e.tag !== TAG_PUT) tomb.add(e);
  const out: Entry[] = [];
  // Keep the tombstones that may still shadow older data below this compaction.
  for (const e of entries) {
    if (e.tag === TAG_PUT) continue;
    if (e.tag === TAG_DEL_ROW) {
      if (e.seq === tomb.rowSeq) out.push(e);
    } else if (e.seq > tomb.rowSeq) out.push(e);
  }
  out.push(...visibleEntries(key, entries, Number.MAX_SAFE_INTEGER, drops));
  return out;
}
