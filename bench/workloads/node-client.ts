import { Bigtable } from '@google-cloud/bigtable';
import type { Table } from '@google-cloud/bigtable';
import { closedLoop } from './closed-loop.js';
import { FAMILY, QUALIFIER, ValuePool, logicalRowBytes, rowKey, shuffledIndices } from './dataset.js';
import type { Counts } from './workload.js';

/** The official Node client (@google-cloud/bigtable), as the benchmark uses it. */

export const PROJECT = 'bench';
export const INSTANCE = 'bench';

// google-auth-library probes the GCE metadata server even for an emulator; never here.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

/**
 * A client for one server. Passing the address as `apiEndpoint` is what
 * BIGTABLE_EMULATOR_HOST does (plaintext, no credentials), but per client, so
 * clients for both targets live in one process. Client-side metrics are off:
 * they would call Cloud Monitoring.
 */
export function nodeClient(address: string): Bigtable {
  return new Bigtable({ projectId: PROJECT, apiEndpoint: address, metricsEnabled: false });
}

export function fullTableName(table: string): string {
  return `projects/${PROJECT}/instances/${INSTANCE}/tables/${table}`;
}

/** A table of the benchmark instance. */
export function benchTable(client: Bigtable, id: string): Table {
  return client.instance(INSTANCE).table(id);
}

/** Creates a table with the benchmark's one column family. */
export async function createTable(client: Bigtable, id: string): Promise<Table> {
  const table = benchTable(client, id);
  await table.create({ families: [FAMILY] });
  return table;
}

export interface LoadOptions {
  readonly rows: number;
  readonly valueSize: number;
  readonly batchRows: number;
  readonly inFlight: number;
  /** Seed of the load order. */
  readonly seed: number;
  readonly tick: (rowsDone: number) => void;
}

/**
 * Loads rows 0 … rows-1 in a shuffled order, in MutateRows requests of
 * `batchRows` rows (Table.insert sends one MutateRows per call), `inFlight`
 * at a time. Latency is per request.
 */
export function loadRows(table: Table, o: LoadOptions): Promise<Counts> {
  const order = shuffledIndices(o.rows, o.seed);
  const pool = new ValuePool(o.valueSize);
  const batches = Math.ceil(o.rows / o.batchRows);
  return closedLoop({
    concurrency: o.inFlight,
    items: batches,
    tickPer: 'row',
    latency: true,
    tick: o.tick,
    op: async (_lane, b) => {
      const from = b * o.batchRows;
      const to = Math.min(o.rows, from + o.batchRows);
      const entries = [];
      for (let k = from; k < to; k++) {
        const i = order[k] as number;
        entries.push({ key: rowKey(i), data: { [FAMILY]: { [QUALIFIER]: pool.value(i) } } });
      }
      await table.insert(entries);
      return { rows: to - from, bytes: (to - from) * logicalRowBytes(o.valueSize) };
    },
  });
}

/**
 * A MutateRow (the unary call) setting the benchmark column of one row to
 * `value` at the server's time, through the client's generic
 * `Bigtable.request`, the path its Row.filter and Row.increment take for
 * their unary calls (none of its methods sends a MutateRow).
 */
export function mutateRow(client: Bigtable, table: string, key: string, value: Buffer): Promise<void> {
  const mutation = { setCell: { familyName: FAMILY, columnQualifier: Buffer.from(QUALIFIER), timestampMicros: -1, value } };
  return new Promise((resolve, reject) => {
    client.request(
      {
        client: 'BigtableClient',
        method: 'mutateRow',
        reqOpts: { tableName: fullTableName(table), rowKey: Buffer.from(key), mutations: [mutation] },
        gaxOpts: {},
      },
      (err: Error | null | undefined) => (err ? reject(err) : resolve()),
    );
  });
}

/** Counts the rows of a table with a scan that strips values (for verification). */
export function countRows(table: Table): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    table
      .createReadStream({ decode: false, filter: { value: { strip: true } } })
      .on('data', () => n++)
      .on('error', reject)
      .on('end', () => resolve(n));
  });
}

/** The first value of the benchmark column in a row returned with decode: false. */
export function cellValue(row: { data?: unknown }): Buffer | undefined {
  const data = row.data as Record<string, Record<string, { value: unknown }[]>> | undefined;
  const v = data?.[FAMILY]?.[QUALIFIER]?.[0]?.value;
  return Buffer.isBuffer(v) ? v : undefined;
}
