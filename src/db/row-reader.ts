import type { ViewMatcher } from '../model/authorized-view.js';
import type { ByteString } from '../model/bytes.js';
import type { Row } from '../model/cell.js';
import type { CompiledFilter } from '../model/filter/index.js';
import { type KeyRange, intersectRanges } from '../model/key-range.js';
import type { MaybePromise, RowCursor } from '../storage/store.js';
import type { Tablet } from '../tablet/tablet.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import type { ReadStats, RowPuller, RowReader } from './api.js';
import { visibleCells } from './row-assembly.js';
import type { TableAccess } from './access.js';
import type { Schema } from './schema.js';
import { type UsageSink, seenRowBytes } from './usage.js';

/** Rows whose usage (rows, bytes, time, keys) is handed to the tablet's meter (and the access recorder) at once. */
const USAGE_BATCH_ROWS = 64;

/** Rows filtered out in a row before `next()` yields to the event loop. */
const YIELD_AFTER_SKIPPED_ROWS = 1000;

/** Marks the end of the stored rows. */
const END = Symbol('end');
/** Marks a stored row that produced no output. */
const SKIP = Symbol('skip');

type Piece =
  | { readonly kind: 'point'; readonly tablet: Tablet; readonly key: ByteString }
  | { readonly kind: 'scan'; readonly tabletId: string; readonly cursor: RowCursor };

export interface ReadPlan {
  /** Sorted, disjoint ranges (normalizeRowSet). */
  readonly ranges: readonly KeyRange[];
  readonly reversed: boolean;
  /** 0 for no limit. */
  readonly limit: number;
  readonly filter: CompiledFilter | undefined;
  /** Schema as of the start of the request. */
  readonly schema: Schema;
  /** The table's tablets now: splits and merges replace the map while a read runs. */
  readonly tablets: () => TabletMap;
  /** Read time for GC (max age). */
  readonly nowMicros: number;
  /** Where the work done on each tablet is counted (and, through its `access`, recorded per row and per request). */
  readonly usage?: UsageSink;
  /**
   * An authorized view read through: only its cells reach the filter and the output (the ranges are already
   * narrowed to its rows). Absent, the read costs what it did before views existed: one test per row.
   */
  readonly view?: ViewMatcher | undefined;
}

/**
 * A streaming ReadRows: walks the ranges (descending when reversed), and
 * within each range the tablets it touches, pulling one stored row at a
 * time from the tablet's store. Each row gets read-time GC, family ordering
 * and the filter; rows left empty are skipped. Nothing is read ahead: a
 * consumer that stops calling `next()` stops the scan.
 *
 * Consistency: each row range is read as of one point in time: when the
 * reader reaches a range it opens cursors (snapshots) on all the tablets the
 * range touches at once. Single-key ranges are point lookups. Rows are always
 * whole and atomic, as Bigtable promises.
 */
export class TableRowReader implements RowPuller, RowReader {
  readonly stats: ReadStats = { rowsSeen: 0, cellsSeen: 0, rowsReturned: 0, cellsReturned: 0 };
  lastScannedKey: ByteString | undefined;

  private rangeIndex: number;
  /** Pieces of the current range not read yet, in reading order (their cursors already open). */
  private readonly pieces: Piece[] = [];
  /** The tablet the current rows come from, and the work not yet handed to it. */
  private servingTablet: string | undefined;
  private pendingRows = 0;
  private pendingBytes = 0;
  private pendingCpuMicros = 0;
  private readonly pendingKeys: ByteString[] = [];
  /** Per pending row, filled only while recording: stored bytes seen, cells returned. */
  private readonly pendingRowBytes: number[] = [];
  private readonly pendingCells: number[] = [];
  /** The recorder, when recording: gets the rows and, at the first close(), the request's latency. */
  private readonly access: TableAccess | undefined;
  private readonly startedAt: number = 0;
  private firstKey: ByteString | undefined;
  private cursor: RowCursor | undefined;
  private finished = false;

  constructor(private readonly plan: ReadPlan) {
    this.rangeIndex = plan.reversed ? plan.ranges.length - 1 : 0;
    this.access = plan.usage?.access;
    if (this.access !== undefined) this.startedAt = performance.now();
  }

  next(): MaybePromise<Row | undefined> {
    const usage = this.plan.usage;
    if (usage === undefined) return this.step();
    const t0 = performance.now();
    const out = this.step();
    // Time spent serving (the synchronous part) and the rows read go to the tablet being read,
    // a batch of rows at a time (and whenever the tablet changes, and at the end).
    this.pendingCpuMicros += (performance.now() - t0) * 1000;
    if (this.pendingRows >= USAGE_BATCH_ROWS || out === undefined || out instanceof Promise) this.flushUsage();
    return out;
  }

  private step(): MaybePromise<Row | undefined> {
    let skipped = 0;
    for (;;) {
      if (this.finished) return undefined;
      const raw = this.pull();
      if (raw instanceof Promise) return raw.then((r) => this.afterPull(r));
      const out = this.process(raw);
      if (out !== SKIP) return out;
      // A long stretch of filtered-out rows yields to the event loop, so that other
      // requests (and this read's heartbeats) keep moving.
      if (++skipped >= YIELD_AFTER_SKIPPED_ROWS) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.step());
    }
  }

  /** The rows for `for await`; leaving the loop early (or a failed read) closes the reader. */
  [Symbol.asyncIterator](): AsyncIterator<Row, undefined> {
    return {
      next: async () => {
        try {
          const row = await this.next();
          return row === undefined ? { done: true, value: undefined } : { done: false, value: row };
        } catch (e) {
          this.close(false);
          throw e;
        }
      },
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }

  /** Ends the read; the first call reports the request (its latency, `ok` false for a failed read) to the recorder. */
  close(ok = true): void {
    this.flushUsage();
    const access = this.access;
    if (access !== undefined && !this.finished) {
      const firstKey = this.firstKey ?? this.plan.ranges[this.plan.reversed ? this.plan.ranges.length - 1 : 0]?.start;
      access.requestEnded('read', firstKey, (performance.now() - this.startedAt) * 1000, ok);
    }
    this.finished = true;
    this.closeCursor();
    this.closePieces();
  }

  /** Hands the work counted since the last call to the tablet being served. */
  private flushUsage(): void {
    const usage = this.plan.usage;
    const tablet = this.servingTablet;
    if (usage === undefined || tablet === undefined) return;
    const cpuMicros = this.pendingCpuMicros;
    if (this.pendingRows > 0 || cpuMicros > 0) {
      usage.recordUsage(tablet, { requests: 0, rowsRead: this.pendingRows, bytesRead: this.pendingBytes, cpuMicros });
      this.pendingRows = 0;
      this.pendingBytes = 0;
      this.pendingCpuMicros = 0;
    }
    const keys = this.pendingKeys;
    if (keys.length > 0) {
      usage.rowsRead(tablet, { keys, bytes: this.pendingRowBytes, cellsReturned: this.pendingCells, count: keys.length, cpuMicros });
      keys.length = 0;
      this.pendingRowBytes.length = 0;
      this.pendingCells.length = 0;
    }
  }

  private afterPull(raw: Row | typeof END): MaybePromise<Row | undefined> {
    const out = this.process(raw);
    return out === SKIP ? this.step() : out;
  }

  /** Output for one stored row, SKIP when it produces none, undefined at the end. */
  private process(raw: Row | typeof END): Row | undefined | typeof SKIP {
    if (raw === END) {
      this.close();
      return undefined;
    }
    const { schema, filter, nowMicros, usage, view } = this.plan;
    if (usage !== undefined) {
      const bytes = seenRowBytes(raw.key, raw.cells);
      this.pendingRows++;
      this.pendingBytes += bytes;
      this.pendingKeys.push(raw.key);
      if (this.access !== undefined) {
        this.pendingRowBytes.push(bytes);
        this.pendingCells.push(0);
        this.firstKey ??= raw.key;
      }
    }
    // Through a view, only its cells count as seen: request stats say nothing of the cells it hides.
    const stored = view === undefined ? raw.cells : view.cellsInView(raw.cells);
    this.stats.rowsSeen++;
    this.stats.cellsSeen += stored.length;
    this.lastScannedKey = raw.key;
    const visible = visibleCells(stored, schema, nowMicros, 'output');
    if (visible.length === 0) return SKIP;
    let cells = visible;
    if (filter !== undefined && !filter.passesAll) {
      cells = filter.keyMayMatch(raw.key)
        ? filter.apply(visible === raw.cells ? raw : { key: raw.key, cells: visible }, schema.compare)
        : [];
      if (cells.length === 0) return SKIP;
    }
    this.stats.rowsReturned++;
    this.stats.cellsReturned += cells.length;
    if (this.access !== undefined) this.pendingCells[this.pendingCells.length - 1] = cells.length;
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
      this.flushUsage();
      this.servingTablet = piece.kind === 'point' ? piece.tablet.id : piece.tabletId;
      this.plan.usage?.recordUsage(this.servingTablet, { requests: 1 });
      if (piece.kind === 'point') {
        // Looked up now: a split since the range started may have replaced the tablet.
        const r = this.plan.tablets().locate(piece.key).store.get(piece.key);
        if (r instanceof Promise) return r.then((row) => row ?? this.pull());
        if (r !== undefined) return r;
        continue;
      }
      this.cursor = piece.cursor;
    }
  }

  private afterCursor(row: Row | undefined): MaybePromise<Row | typeof END> {
    if (row !== undefined) return row;
    this.closeCursor();
    return this.pull();
  }

  /**
   * The next piece to read, in reading order. When a range starts, cursors on
   * every tablet it touches are opened at once, so the whole range is read as
   * of one point in time even while writes continue.
   */
  private nextPiece(): Piece | undefined {
    const { ranges, reversed, tablets } = this.plan;
    for (;;) {
      const next = this.pieces.shift();
      if (next !== undefined) return next;
      if (this.rangeIndex < 0 || this.rangeIndex >= ranges.length) return undefined;
      const range = ranges[this.rangeIndex]!;
      this.rangeIndex += reversed ? -1 : 1;
      const touched = tablets().overlapping(range);
      const ordered = reversed ? [...touched].reverse() : touched;
      for (const tablet of ordered) {
        const piece = intersectRanges(range, tablet.range);
        if (isPoint(piece)) this.pieces.push({ kind: 'point', tablet, key: piece.start });
        else this.pieces.push({ kind: 'scan', tabletId: tablet.id, cursor: tablet.store.scan({ range: piece, reverse: reversed }) });
      }
    }
  }

  private closeCursor(): void {
    const c = this.cursor;
    this.cursor = undefined;
    c?.close();
  }

  private closePieces(): void {
    for (const p of this.pieces.splice(0)) if (p.kind === 'scan') p.cursor.close();
  }
}

function isPoint(r: KeyRange): boolean {
  return r.end !== undefined && r.end.length === r.start.length + 1 && r.end.charCodeAt(r.start.length) === 0 && r.end.startsWith(r.start);
}
