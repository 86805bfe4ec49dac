import type { Connection } from './bigtable-endpoint.js';
import { retriable, type Cell, type CellRow } from './table-cells.js';

/** Limits of a writer: rows or MiB per second (0 or undefined: none). */
export interface RateLimits {
  readonly maxRowsPerSecond?: number | undefined;
  readonly maxMibPerSecond?: number | undefined;
}

/** The time a RateLimiter reads and waits in (a fake one in tests). */
export interface PacingClock {
  now(): number;
  sleep(millis: number): Promise<void>;
}

const realClock: PacingClock = {
  now: () => performance.now(),
  sleep: (millis) => new Promise((r) => setTimeout(r, millis)),
};

/** Paces work to a rate: `take(rows, bytes)` waits until doing that much more stays under the limits since the start. */
export class RateLimiter {
  private readonly began: number;
  private rows = 0;
  private bytes = 0;
  constructor(
    private readonly limits: RateLimits,
    private readonly clock: PacingClock = realClock,
  ) {
    this.began = clock.now();
  }

  async take(rows: number, bytes: number): Promise<void> {
    this.rows += rows;
    this.bytes += bytes;
    const byRows = this.limits.maxRowsPerSecond ? (this.rows / this.limits.maxRowsPerSecond) * 1000 : 0;
    const byBytes = this.limits.maxMibPerSecond ? (this.bytes / (this.limits.maxMibPerSecond * 1048576)) * 1000 : 0;
    const wait = Math.max(byRows, byBytes) - (this.clock.now() - this.began);
    if (wait > 0) await this.clock.sleep(wait);
  }
}

/** The bytes a row moves (keys, qualifiers, values), for rates and summaries. */
export function rowBytes(row: CellRow): number {
  let n = 0;
  for (const c of row.cells) n += c.key.length + c.family.length + c.qualifier.length + c.value.length + 8;
  return n;
}

const BATCH_ENTRIES = 500;
const BATCH_BYTES = 4 * 1048576;
const BATCH_MUTATIONS = 50_000;

/**
 * Writes rows with their cells' own timestamps through MutateRows, in batches (500 rows, 4 MiB or 50,000
 * mutations, whichever comes first), so that writing the same rows twice changes nothing (idempotent). Entries
 * that fail with a retriable status are sent again, up to 5 times; another failure rejects `flush`.
 */
export class CellWriter {
  private entries: { rowKey: Buffer; mutations: object[]; origin?: string | undefined }[] = [];
  rowsRejected = 0;
  private bytes = 0;
  private mutations = 0;
  rowsWritten = 0;
  cellsWritten = 0;
  bytesWritten = 0;

  constructor(
    private readonly conn: Connection,
    private readonly limiter: RateLimiter,
    /** Given: a row the server refuses for good (a missing family, a bad timestamp) is passed here and skipped; else it fails the flush. */
    private readonly onRejected?: (origin: string, message: string) => void,
    /** The destination's aggregate families, whose cells are written with MergeToCell (aggregateFamilies()). */
    private readonly aggregates: ReadonlySet<string> = new Set(),
  ) {}

  async add(row: CellRow): Promise<void> {
    if (row.cells.length === 0) return;
    const mutations = row.cells.flatMap((c) => (this.aggregates.has(c.family) ? mergeCell(c) : [setCell(c)]));
    this.entries.push({ rowKey: row.key, mutations, origin: row.origin });
    this.bytes += rowBytes(row);
    this.mutations += mutations.length;
    if (this.entries.length >= BATCH_ENTRIES || this.bytes >= BATCH_BYTES || this.mutations >= BATCH_MUTATIONS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.entries.length === 0) return;
    const entries = this.entries;
    const bytes = this.bytes;
    const cells = this.mutations;
    this.entries = [];
    this.bytes = 0;
    this.mutations = 0;
    await this.limiter.take(entries.length, bytes);
    let pending = entries;
    let rejected = 0;
    let rejectedRows = 0;
    for (let attempt = 0; ; attempt++) {
      const failed: typeof entries = [];
      let lastError: { code?: number; message?: string } | undefined;
      try {
        const stream = this.conn.data.mutateRows({ tableName: this.conn.name, entries: pending }, {
          retry: null,
        } as object);
        const seen = new Set<number>();
        for await (const r of stream as AsyncIterable<{
          entries?: { index?: number | string | null; status?: { code?: number | null; message?: string | null } | null }[] | null;
        }>) {
          for (const e of r.entries ?? []) {
            const i = Number(e.index ?? 0);
            seen.add(i);
            const code = e.status?.code ?? 0;
            if (code !== 0) {
              lastError = { code, message: e.status?.message ?? '' };
              const entry = pending[i]!;
              if (retriable({ code })) failed.push(entry);
              else if (this.onRejected === undefined)
                throw new WriteError(
                  `MutateRows: ${e.status?.message ?? `status ${code}`} (row ${entry.rowKey.toString('base64')}, base64)`,
                );
              else {
                this.rowsRejected++;
                rejectedRows++;
                rejected += entry.mutations.length;
                this.onRejected(entry.origin ?? `row ${entry.rowKey.toString('base64')} (base64)`, e.status?.message ?? `status ${code}`);
              }
            }
          }
        }
        pending.forEach((p, i) => seen.has(i) || failed.push(p));
      } catch (e) {
        if (e instanceof WriteError || !retriable(e)) throw e;
        lastError = e as { code?: number; message?: string };
        failed.push(...pending);
      }
      if (failed.length === 0) break;
      if (attempt >= 5)
        throw new WriteError(`MutateRows: ${failed.length} rows still failing after 5 retries: ${lastError?.message ?? ''}`);
      pending = failed;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
    this.rowsWritten += entries.length - rejectedRows;
    this.cellsWritten += cells - rejected;
    this.bytesWritten += bytes;
  }
}

export class WriteError extends Error {}

function setCell(c: Cell): object {
  return { setCell: { familyName: c.family, columnQualifier: c.qualifier, timestampMicros: c.timestamp, value: c.value } };
}

/**
 * A cell of an aggregate family, which refuses SetCell: the version at its timestamp is deleted, then the value
 * merged into the now empty cell, in one row mutation, so that writing it again leaves the same value (a merge alone
 * would add it twice). The delete spans the millisecond of the timestamp (tables keep millisecond granularity).
 */
function mergeCell(c: Cell): object[] {
  const ts = BigInt(c.timestamp);
  return [
    {
      deleteFromColumn: {
        familyName: c.family,
        columnQualifier: c.qualifier,
        timeRange: { startTimestampMicros: c.timestamp, endTimestampMicros: String(ts + 1000n) },
      },
    },
    {
      mergeToCell: {
        familyName: c.family,
        columnQualifier: { rawValue: c.qualifier },
        timestamp: { rawTimestampMicros: c.timestamp },
        input: { rawValue: c.value },
      },
    },
  ];
}

/** The families of a table with an aggregate value type (none when its schema cannot be read). */
export async function aggregateFamilies(conn: Connection): Promise<Set<string>> {
  try {
    const [table] = await conn.admin.getTable({ name: conn.name, view: 'SCHEMA_VIEW' });
    return familiesWithValueType(table.columnFamilies ?? {});
  } catch {
    return new Set();
  }
}

/** The names of the families that declare a value type (aggregates). */
export function familiesWithValueType(families: Record<string, { valueType?: unknown } | null | undefined>): Set<string> {
  return new Set(
    Object.entries(families)
      .filter(([, f]) => f?.valueType != null)
      .map(([name]) => name),
  );
}
