import type { Connection } from './bigtable-endpoint.js';

/**
 * One cell version, the unit that `tabletop copy`, `export` and `import` move: a row key, a family, a qualifier, a
 * timestamp in microseconds (a decimal string: int64 does not fit a JS number) and the value.
 */
export interface Cell {
  readonly key: Buffer;
  readonly family: string;
  readonly qualifier: Buffer;
  readonly timestamp: string;
  readonly value: Buffer;
}

/** A row's cells, in the order the server sent them. */
export interface CellRow {
  readonly key: Buffer;
  readonly cells: Cell[];
  /** Where the row came from, for messages (an import's line numbers). */
  origin?: string;
}

/** A key range [start, end) of a table; an empty end is the end of the table. */
export interface KeyRange {
  readonly start: Buffer;
  readonly end: Buffer;
}

interface Chunk {
  rowKey?: Uint8Array | null;
  familyName?: { value?: string | null } | null;
  qualifier?: { value?: Uint8Array | null } | null;
  timestampMicros?: number | string | { toString(): string } | null;
  value?: Uint8Array | null;
  valueSize?: number | null;
  resetRow?: boolean | null;
  commitRow?: boolean | null;
}

/** Rows per ReadRows call of readRange: what it holds at most, whatever the client's stream buffers. */
const PAGE_ROWS = 1000;

/**
 * Every row of `range` with all its cell versions, in key order, merged from ReadRows chunks (split values, reset
 * rows). It reads in pages of PAGE_ROWS rows (rows_limit), asking for the next page after the caller has taken
 * the last row of the previous one: the client library reads a stream ahead of its consumer, so this is what
 * bounds memory. A stream that breaks is resumed after the last whole row, up to `retries` (3) times in a row.
 */
export async function* readRange(conn: Connection, range: KeyRange, options: { retries?: number } = {}): AsyncGenerator<CellRow> {
  let after: Buffer | undefined;
  let failures = 0;
  for (;;) {
    const rowRange: Record<string, Buffer> = {};
    if (after !== undefined) rowRange['startKeyOpen'] = after;
    else if (range.start.length > 0) rowRange['startKeyClosed'] = range.start;
    if (range.end.length > 0) rowRange['endKeyOpen'] = range.end;
    const stream = conn.data.readRows({ tableName: conn.name, rows: { rowRanges: [rowRange] }, rowsLimit: PAGE_ROWS }, {
      retry: null,
    } as object);
    const merger = new ChunkMerger();
    let rows = 0;
    try {
      for await (const response of stream as AsyncIterable<{ chunks?: Chunk[] | null }>) {
        for (const chunk of response.chunks ?? []) {
          const row = merger.push(chunk);
          if (row !== undefined) {
            after = row.key;
            failures = 0;
            rows++;
            yield row;
          }
        }
      }
      if (rows < PAGE_ROWS) return;
    } catch (e) {
      if (!retriable(e) || ++failures > (options.retries ?? 3)) throw e;
      await new Promise((r) => setTimeout(r, 100 * 2 ** failures));
    } finally {
      stream.cancel?.();
    }
  }
}

/** UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, INTERNAL (a reset stream): worth another try. */
export function retriable(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 14 || code === 4 || code === 10 || code === 13;
}

/** ReadRows' chunk protocol: carries the key, family and qualifier over, joins split values, drops reset rows. */
export class ChunkMerger {
  private key: Buffer | undefined;
  private family = '';
  private qualifier = Buffer.alloc(0);
  private timestamp = '0';
  private parts: Buffer[] = [];
  private cells: Cell[] = [];

  /** Takes a chunk; returns the row it commits. */
  push(chunk: Chunk): CellRow | undefined {
    if (chunk.resetRow === true) {
      this.key = undefined;
      this.cells = [];
      this.parts = [];
      return undefined;
    }
    if (chunk.rowKey != null && chunk.rowKey.length > 0) this.key = Buffer.from(chunk.rowKey);
    if (chunk.familyName != null) this.family = chunk.familyName.value ?? '';
    if (chunk.qualifier != null) this.qualifier = Buffer.from(chunk.qualifier.value ?? []);
    if (this.parts.length === 0) this.timestamp = String(chunk.timestampMicros ?? 0);
    if (chunk.value != null && chunk.value.length > 0) this.parts.push(Buffer.from(chunk.value));
    if ((chunk.valueSize ?? 0) === 0) {
      const key = this.key;
      if (key === undefined) throw new Error('ReadRows: a chunk without a row key');
      this.cells.push({ key, family: this.family, qualifier: this.qualifier, timestamp: this.timestamp, value: Buffer.concat(this.parts) });
      this.parts = [];
    }
    if (chunk.commitRow !== true) return undefined;
    const row = { key: this.key!, cells: this.cells };
    this.cells = [];
    return row;
  }
}

/** The source's SampleRowKeys as key ranges that cover the table, in order. */
export async function sampleRanges(conn: Connection): Promise<KeyRange[]> {
  const keys: Buffer[] = [];
  const stream = conn.data.sampleRowKeys({ tableName: conn.name });
  for await (const r of stream as AsyncIterable<{ rowKey?: Uint8Array | null }>) {
    const k = Buffer.from(r.rowKey ?? []);
    if (k.length > 0 && (keys.length === 0 || Buffer.compare(k, keys[keys.length - 1]!) > 0)) keys.push(k);
  }
  const ranges: KeyRange[] = [];
  let start: Buffer = Buffer.alloc(0);
  for (const k of keys) {
    ranges.push({ start, end: k });
    start = k;
  }
  ranges.push({ start, end: Buffer.alloc(0) });
  return ranges;
}
