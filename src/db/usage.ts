import type { ByteString } from '../model/bytes.js';
import type { Cell } from '../model/cell.js';
import type { LoadTotals } from '../tablet/load-meter.js';
import type { RowBatch, TableAccess } from './access.js';

/**
 * Receives the work done per tablet (the table runtime: its load meters and,
 * when recording is on, the table's AccessRecorder hook). One call per fact:
 * the totals go to `recordUsage`, the rows of the same batch to
 * `rowsWritten` / `rowsRead`, which feed the load-split key sample and the
 * access recorder from the same arrays.
 */
export interface UsageSink {
  recordUsage(tabletId: string, work: Partial<LoadTotals>, key?: ByteString): void;
  /** The rows of one store write. */
  rowsWritten(tabletId: string, batch: RowBatch): void;
  /** The rows of one read batch; `bytes` and `cellsReturned` are filled only while `access` is set. */
  rowsRead(tabletId: string, batch: RowBatch): void;
  /** The table's recorder, undefined when nothing records (then no per-row facts beyond the keys are gathered). */
  readonly access: TableAccess | undefined;
}

/** The stored bytes a read sees of a row, as the meters count them: key, qualifiers and values. */
export function seenRowBytes(key: ByteString, cells: readonly Cell[]): number {
  let bytes = key.length;
  for (let i = 0; i < cells.length; i++) bytes += cells[i]!.value.byteLength + cells[i]!.qualifier.length;
  return bytes;
}
