import type { ByteString } from '../model/bytes.js';
import { printable } from '../model/bytes.js';
import type { Row } from '../model/cell.js';
import { TabletopError, invalidArgument, isTabletopError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { applyStoreOps, rowBytes } from '../storage/row-ops.js';
import type { ColumnRef, MaybePromise, RowWrite, StoreOp } from '../storage/store.js';
import type { Tablet } from '../tablet/tablet.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import { andThen } from './maybe.js';
import type { UsageSink } from './usage.js';

interface PendingBatch {
  readonly tablet: Tablet;
  readonly writes: RowWrite[];
  /** Request entry index of each write. */
  readonly entries: number[];
  /** The key of each write (the load-split sample and the access recorder read them). */
  readonly keys: ByteString[];
  /** Upper bound of the bytes each write adds. */
  readonly rowBytes: number[];
  /** Upper bound of the bytes the writes add. */
  bytes: number;
}

/**
 * Collects the row writes of one request per tablet and hands each tablet
 * its writes in one `store.write` call (one commit-log record for the
 * durable engine). Reads of a row this request already wrote go after a
 * flush, so a later entry sees an earlier one. The caller holds the row
 * locks of every key it adds while it flushes (or runs without yielding
 * from its reads to its flush: write-path.ts); it may release them before
 * awaiting `durable()`, and acknowledges only after.
 */
export class WriteBatch {
  private readonly pending = new Map<Tablet, PendingBatch>();
  private readonly waits: Promise<void>[] = [];

  constructor(
    private readonly tablets: TabletMap,
    /** Per-entry outcome; a failed store write sets the error of each of its entries. */
    private readonly results: (TabletopError | undefined)[],
    /** Where the work done on each tablet is counted (load-based splits, hot tablets). */
    private readonly usage?: UsageSink,
  ) {}

  /**
   * The row as the lock holder sees it: including writes applied but not yet
   * durable, this request's earlier ones among them (whatever is pending is
   * applied first; reads are rare in a batch, so tracking which rows are
   * pending would cost more than it saves). With `columns`, only the newest
   * cell of each of them (see RowStore.getForUpdate).
   */
  read(key: ByteString, columns?: readonly ColumnRef[]): MaybePromise<Row | undefined> {
    const store = this.tablets.locate(key).store;
    this.flush();
    return store.getForUpdate(key, columns);
  }

  /**
   * Throws InvalidArgument when the row would be larger than the row limit
   * (256 MiB) after `ops`. The store bounds the row's size without reading
   * it, so the row is only read when that bound comes near the limit.
   */
  checkRowSize(key: ByteString, ops: readonly StoreOp[]): MaybePromise<void> {
    const added = addedBytes(key, ops);
    if (added === 0) return;
    const tablet = this.tablets.locate(key);
    const extra = (this.pending.get(tablet)?.bytes ?? 0) + added;
    const bound = tablet.store.rowBytesBound(key, LIMITS.maxRowBytes - extra) + extra;
    if (bound <= LIMITS.maxRowBytes) return;
    return andThen(this.read(key), (row) => {
      const after = rowBytes(key, applyStoreOps(row?.cells ?? [], ops));
      if (after > LIMITS.maxRowBytes) {
        throw invalidArgument(
          `Error while mutating the row "${printable(key.slice(0, 64))}": reached the maximum allowed row size: the row would hold ${after} bytes; the limit is ${LIMITS.maxRowBytes}`,
        );
      }
    });
  }

  add(entry: number, key: ByteString, ops: readonly StoreOp[]): void {
    const tablet = this.tablets.locate(key);
    let batch = this.pending.get(tablet);
    if (batch === undefined) {
      batch = { tablet, writes: [], entries: [], keys: [], rowBytes: [], bytes: 0 };
      this.pending.set(tablet, batch);
    }
    const bytes = addedBytes(key, ops);
    batch.writes.push({ key, ops });
    batch.entries.push(entry);
    batch.keys.push(key);
    batch.rowBytes.push(bytes);
    batch.bytes += bytes;
  }

  /**
   * Applies everything pending (stores apply writes before returning). Their
   * durability is awaited by `durable()`; store failures become the errors of
   * the entries concerned.
   */
  flush(): void {
    if (this.pending.size === 0) return;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const b of batches) {
      const t0 = performance.now();
      try {
        const r = b.tablet.store.write(b.writes);
        if (r instanceof Promise) this.waits.push(r.catch((e: unknown) => this.fail(b, e)));
      } catch (e) {
        this.fail(b, e);
      }
      if (this.usage !== undefined) {
        const id = b.tablet.id;
        const cpuMicros = (performance.now() - t0) * 1000;
        this.usage.recordUsage(id, { requests: 1, rowsWritten: b.writes.length, bytesWritten: b.bytes, cpuMicros });
        this.usage.rowsWritten(id, { keys: b.keys, bytes: b.rowBytes, count: b.keys.length, cpuMicros });
      }
    }
  }

  /**
   * Resolves once everything `read` can have seen in `key`'s tablet is durable: what a caller that answers from a
   * read without writing must wait for (RowStore.durableNow).
   */
  seenDurable(key: ByteString): MaybePromise<void> {
    return this.tablets.locate(key).store.durableNow();
  }

  /** Resolves once every write flushed so far is durable (or failed, with its entries' errors set). */
  durable(): MaybePromise<void> {
    const n = this.waits.length;
    if (n === 0) return;
    // One store write (a single-row call, a batch on one tablet) is the common case: its promise
    // already settles to undefined, failures included, so Promise.all's allocations are skipped.
    if (n === 1) return this.waits.pop();
    const waits = this.waits.splice(0);
    return Promise.all(waits).then(() => undefined);
  }

  private fail(batch: PendingBatch, e: unknown): void {
    const error = isTabletopError(e)
      ? e
      : new TabletopError('Internal', `Writing to tablet ${batch.tablet.id} failed: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
        });
    for (const i of batch.entries) this.results[i] = error;
  }
}

/** An upper bound of the bytes `ops` add to a row (deletes add nothing). */
function addedBytes(key: ByteString, ops: readonly StoreOp[]): number {
  let n = 0;
  for (const op of ops) {
    if (op.kind === 'put') n += op.family.length + op.qualifier.length + op.value.byteLength + 8;
  }
  return n === 0 ? 0 : n + key.length;
}
