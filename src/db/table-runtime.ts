import type { TableName } from '../model/names.js';
import type { ByteString } from '../model/bytes.js';
import { LoadMeter, type LoadTotals } from '../tablet/load-meter.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import type { RowBatch, TableAccess } from './access.js';
import { RowLocks } from './row-locks.js';
import type { Schema } from './schema.js';
import type { UsageSink } from './usage.js';
import { WriteGate } from './write-gate.js';

/**
 * The live side of a table: what requests need beyond its catalog record.
 * `schema` and `tablets` are immutable values replaced on change, so a
 * request captures them once and works on a consistent version.
 */
export class TableRuntime implements UsageSink {
  readonly locks = new RowLocks();
  readonly gate = new WriteGate();
  /** Set when the table is being deleted: writes that were waiting fail with NotFound. */
  deleted = false;
  /** Load on each tablet, by tablet id. */
  readonly meters = new Map<string, LoadMeter>();

  constructor(
    readonly name: TableName,
    readonly uid: string,
    public schema: Schema,
    public tablets: TabletMap,
    private readonly now: () => number = () => Date.now() * 1000,
    /** Where the table's traffic is recorded (src/insight), undefined when nothing records. */
    readonly access: TableAccess | undefined = undefined,
  ) {}

  meter(tabletId: string): LoadMeter {
    let m = this.meters.get(tabletId);
    if (m === undefined) {
      m = new LoadMeter();
      this.meters.set(tabletId, m);
    }
    return m;
  }

  /** The rows of one store write: their keys go to the tablet's load-split sample, the batch to the recorder. */
  rowsWritten(tabletId: string, batch: RowBatch): void {
    this.meter(tabletId).sampleKeys(this.now(), batch.keys, batch.count);
    this.access?.rowsWritten(batch);
  }

  /** The rows of one read batch: their keys go to the tablet's load-split sample, the batch to the recorder. */
  rowsRead(tabletId: string, batch: RowBatch): void {
    this.meter(tabletId).sampleKeys(this.now(), batch.keys, batch.count);
    this.access?.rowsRead(batch);
  }

  /** Attributes work to a tablet (the request count defaults to 1); `key` feeds the load-split sample. */
  recordUsage(tabletId: string, work: Partial<LoadTotals>, key?: ByteString): void {
    this.meter(tabletId).record(this.now(), work, key);
  }
}
