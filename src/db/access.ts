import type { ByteString } from '../model/bytes.js';
import type { TableName } from '../model/names.js';

/**
 * The hook through which the db reports each table's traffic to a recorder
 * above it (src/insight implements it; the db never imports insight, and
 * src/index.ts wires the two). Types only. The facts come from the points
 * where the db already attributes work to tablets (write-batch.ts `flush()`,
 * row-reader.ts `flushUsage()`), so nothing is counted twice; with no
 * recorder the db does no work for it beyond one branch per batch.
 */

/** Per-row facts of one store write or one read batch. Arrays are the caller's reusable buffers: valid during the call only, `count` entries used. */
export interface RowBatch {
  readonly keys: readonly ByteString[];
  /** Write: bytes the row's ops add (WriteBatch's upper bound). Read: stored bytes of the row as seen (key + qualifiers + values). */
  readonly bytes: readonly number[];
  /** Read only: cells returned for each row, 0 when the row was filtered out. */
  readonly cellsReturned?: readonly number[];
  readonly count: number;
  /** Serving time of the batch (µs), as the load meter gets it; the recorder spreads it evenly over the rows. */
  readonly cpuMicros: number;
}

/** What one table's traffic is reported to (implemented by src/insight; db never imports it). */
export interface TableAccess {
  rowsWritten(batch: RowBatch): void;
  /** Rows in reading order (ascending, or descending for a reversed read). */
  rowsRead(batch: RowBatch): void;
  requestEnded(kind: 'read' | 'write', firstKey: ByteString | undefined, latencyMicros: number, ok: boolean): void;
}

export interface AccessRecorder {
  /** Called when a table runtime is made (CreateTable, or opening the catalog); returns undefined to record nothing. */
  openTable(uid: string, name: TableName): TableAccess | undefined;
  /** The table was deleted: its history goes. */
  dropTable(uid: string): void;
}

/**
 * Where a table's rows lie, for the recorder's key buckets: exact keys of small tables, byte-offset samples of big
 * ones (`TabletopDatabase.keyDistribution`). Points are ascending, tablet boundaries included.
 */
export interface KeyDistribution {
  /** Every row is a point (rowsBefore exact); else points are samples and rows are estimates. */
  readonly exact: boolean;
  readonly rows: number;
  readonly rowsEstimated: boolean;
  readonly bytes: number;
  readonly points: readonly { readonly key: ByteString; readonly rowsBefore: number; readonly bytesBefore: number }[];
  /** The largest rows; exact only when `exact`. */
  readonly largestRows: readonly { readonly key: ByteString; readonly bytes: number }[];
}
