import type { ByteString } from '../model/bytes.js';
import type { Row } from '../model/cell.js';
import type { CompiledFilter } from '../model/filter/index.js';
import { type KeyRange, intersectRanges } from '../model/key-range.js';
import type { MaybePromise, RowCursor } from '../storage/store.js';
import type { Tablet } from '../tablet/tablet.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import type { ReadStats, RowReader } from './api.js';
import { visibleCells } from './row-assembly.js';
import type { Schema } from './schema.js';

/** Rows filtered out in a row before `next()` yields to the event loop. */
const YIELD_AFTER_SKIPPED_ROWS = 1000;

/** Marks the end of the stored rows. */
const END = Symbol('end');
/** Marks a stored row that produced no output. */
const SKIP = Symbol('skip');

export interface ReadPlan {
  /** Sorted, disjoint ranges (normalizeRowSet). */
  readonly ranges: readonly KeyRange[];
  readonly reversed: boolean;
  /** 0 for no limit. */
  readonly limit: number;
  readonly filter: CompiledFilter | undefined;
  /** Schema and tablets as of the start of the request. */
  readonly schema: Schema;
  readonly tablets: TabletMap;
  /** Read time for GC (max age). */
  readonly nowMicros: number;
}

/**
 * A streaming ReadRows: walks the ranges (descending when reversed), and
 * within each range the tablets it touches, pulling one stored row at a
 * time from the tablet's store. Each row gets read-time GC, family ordering
 * and the filter; rows left empty are skipped. Nothing is read ahead: a
 * consumer that stops calling `next()` stops the scan.
 *
 * Consistency: each (range, tablet) piece is read from a snapshot taken when
 * the reader reaches it; single-key ranges are point lookups. Rows are always
 * whole and atomic, as Bigtable promises; a scan over several tablets is not
 * a single point in time (neither is Bigtable's).
 */
export class TableRowReader implements RowReader {
  readonly stats: ReadStats = { rowsSeen: 0, cellsSeen: 0, rowsReturned: 0, cellsReturned: 0 };
  lastScannedKey: ByteString | undefined;

  private rangeIndex: number;
  /** Tablets of the current range, in visiting order, and the next to visit. */
  private rangeTablets: readonly Tablet[] = [];
  private tabletIndex = 0;
  private currentRange: KeyRange | undefined;
  private cursor: RowCursor | undefined;
  private finished = false;

  constructor(private readonly plan: ReadPlan) {
    this.rangeIndex = plan.reversed ? plan.ranges.length - 1 : 0;
  }

  next(): MaybePromise<Row | undefined> {
    let skipped = 0;
    for (;;) {
      if (this.finished) return undefined;
      const raw = this.pull();
      if (raw instanceof Promise) return raw.then((r) => this.afterPull(r));
      const out = this.process(raw);
      if (out !== SKIP) return out;
      // A long stretch of filtered-out rows yields to the event loop, so that other
      // requests (and this read's heartbeats) keep moving.
      if (++skipped >= YIELD_AFTER_SKIPPED_ROWS) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.next());
    }
  }

  close(): void {
    this.finished = true;
    this.closeCursor();
  }

  private afterPull(raw: Row | typeof END): MaybePromise<Row | undefined> {
    const out = this.process(raw);
    return out === SKIP ? this.next() : out;
  }

  /** Output for one stored row, SKIP when it produces none, undefined at the end. */
  private process(raw: Row | typeof END): Row | undefined | typeof SKIP {
    if (raw === END) {
      this.close();
      return undefined;
    }
    const { schema, filter, nowMicros } = this.plan;
    this.stats.rowsSeen++;
    this.stats.cellsSeen += raw.cells.length;
    this.lastScannedKey = raw.key;
    const visible = visibleCells(raw.cells, schema, nowMicros, 'output');
    if (visible.length === 0) return SKIP;
    let cells = visible;
    if (filter !== undefined && !filter.passesAll) {
      cells = filter.keyMayMatch(raw.key) ? filter.apply(visible === raw.cells ? raw : { key: raw.key, cells: visible }, schema.compare) : [];
      if (cells.length === 0) return SKIP;
    }
    this.stats.rowsReturned++;
    this.stats.cellsReturned += cells.length;
    if (this.plan.limit > 0 && this.stats.rowsReturned >= this.plan.limit) this.close();
    return cells === raw.cells ? raw : { key: raw.key, cells };
  }

  /** The next stored row in reading order, or END. */
  private pull(): MaybePromise<Row | typeof END> {
    for (;;) {
      if (this.cursor !== undefined) {
        const r = this.cursor.next();
        if (r instanceof Promise) return r.then((row) => this.afterCursor(row));
        if (r !== undefined) return r;
        this.closeCursor();
        continue;
      }
      const piece = this.nextPiece();
      if (piece === undefined) return END;
      const { tablet, range } = piece;
      if (isPoint(range)) {
        const r = tablet.store.get(range.start);
        if (r instanceof Promise) return r.then((row) => row ?? this.pull());
        if (r !== undefined) return r;
        continue;
      }
      this.cursor = tablet.store.scan({ range, reverse: this.plan.reversed });
    }
  }

  private afterCursor(row: Row | undefined): MaybePromise<Row | typeof END> {
    if (row !== undefined) return row;
    this.closeCursor();
    return this.pull();
  }

  /** The next (tablet, range ∩ tablet) piece to read, in reading order. */
  private nextPiece(): { tablet: Tablet; range: KeyRange } | undefined {
    const { ranges, reversed, tablets } = this.plan;
    for (;;) {
      if (this.currentRange !== undefined && this.tabletIndex < this.rangeTablets.length) {
        const i = reversed ? this.rangeTablets.length - 1 - this.tabletIndex : this.tabletIndex;
        this.tabletIndex++;
        const tablet = this.rangeTablets[i]!;
        return { tablet, range: intersectRanges(this.currentRange, tablet.range) };
      }
      if (this.rangeIndex < 0 || this.rangeIndex >= ranges.length) return undefined;
      this.currentRange = ranges[this.rangeIndex]!;
      this.rangeIndex += reversed ? -1 : 1;
      this.rangeTablets = tablets.overlapping(this.currentRange);
      this.tabletIndex = 0;
    }
  }

  private closeCursor(): void {
    const c = this.cursor;
    this.cursor = undefined;
    c?.close();
  }
}

function isPoint(r: KeyRange): boolean {
  return r.end !== undefined && r.end.length === r.start.length + 1 && r.end.charCodeAt(r.start.length) === 0 && r.end.startsWith(r.start);
}

