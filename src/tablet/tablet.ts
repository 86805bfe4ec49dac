import type { ByteString } from '../model/bytes.js';
import type { KeyRange } from '../model/key-range.js';
import type { RowStore } from '../storage/store.js';

/**
 * A tablet: one contiguous key range `[start, end)` of a table, served by
 * its own RowStore. The tablets of a table cover the whole key space without
 * gaps or overlaps (see TabletMap).
 */
export interface Tablet {
  /** The id of the tablet's store in the storage engine (unique for the engine's lifetime). */
  readonly id: string;
  readonly range: KeyRange;
  readonly store: RowStore;
}

/** The persisted description of a tablet (part of the catalog): plain, serialisable data. */
export interface TabletRecord {
  readonly id: string;
  readonly start: ByteString;
  /** Exclusive end; undefined for the last tablet. */
  readonly end: ByteString | undefined;
}
