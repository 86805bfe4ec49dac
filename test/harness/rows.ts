import type { GetRowsOptions, Row, Table } from '@google-cloud/bigtable';

/**
 * Rows as the Node client returns them, rendered one cell per line in the
 * order the client received them:
 *
 *   key family:qualifier @timestamp value [label,label]
 *
 * Values print as JSON strings; 8-byte values, which the client decodes to
 * numbers, print as `int:N`; Buffers (decode: false) print as `hex:...`.
 * The family order within a row is the order of the family objects in
 * `row.data`, which is the order the server sent them.
 *
 * Caveat: `row.data` is a plain object, so qualifiers that look like array
 * indices ("0", "12") are reordered by JavaScript; tests use non-numeric
 * qualifiers.
 */
export function renderRows(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const data = row.data as Record<string, Record<string, CellData[]>>;
    for (const [family, columns] of Object.entries(data)) {
      for (const [qualifier, cells] of Object.entries(columns)) {
        for (const cell of cells) lines.push(renderCell(String(row.id), family, qualifier, cell));
      }
    }
  }
  return lines;
}

interface CellData {
  value: unknown;
  timestamp: string | number;
  labels?: string[];
}

function renderCell(key: string, family: string, qualifier: string, cell: CellData): string {
  const labels = cell.labels !== undefined && cell.labels.length > 0 ? ` [${cell.labels.join(',')}]` : '';
  return `${key} ${family}:${qualifier} @${cell.timestamp} ${renderValue(cell.value)}${labels}`;
}

export function renderValue(v: unknown): string {
  if (typeof v === 'number') return `int:${v}`;
  if (Buffer.isBuffer(v)) return `hex:${v.toString('hex')}`;
  if (typeof v === 'string') return JSON.stringify(v);
  return `?${String(v)}`;
}

/** The keys of `rows` in order. */
export function keysOf(rows: readonly Row[]): string[] {
  return rows.map((r) => String(r.id));
}

/** All rows matching `options` (Table#getRows), rendered with renderRows. */
export async function readRendered(table: Table, options: GetRowsOptions = {}): Promise<string[]> {
  const [rows] = await table.getRows(options);
  return renderRows(rows);
}

/** The 8-byte big-endian encoding of an int64, as increments and aggregates use. */
export function int64(n: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

/**
 * A key-range bound as the Node client's code and docs take it
 * (`{ value, inclusive }`); its type declarations only admit a string.
 */
export function bound(value: string, inclusive: boolean): string {
  return { value, inclusive } as unknown as string;
}

/**
 * A column to delete, optionally only within [start, end), as
 * Row#deleteCells takes it at runtime (`{ column, time: { start, end } }`);
 * its type declarations only admit strings.
 */
export function columnInRange(column: string, time: { start?: Date; end?: Date }): string {
  return { column, time } as unknown as string;
}
