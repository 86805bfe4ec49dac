import type { TableName } from '../model/names.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import { RowLocks } from './row-locks.js';
import type { Schema } from './schema.js';
import { WriteGate } from './write-gate.js';

/**
 * The live side of a table: what requests need beyond its catalog record.
 * `schema` and `tablets` are immutable values replaced on change, so a
 * request captures them once and works on a consistent version.
 */
export class TableRuntime {
  readonly locks = new RowLocks();
  readonly gate = new WriteGate();
  /** Set when the table is being deleted: writes that were waiting fail with NotFound. */
  deleted = false;

  constructor(
    readonly name: TableName,
    readonly uid: string,
    public schema: Schema,
    public tablets: TabletMap,
  ) {}
}
