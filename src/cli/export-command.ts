import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { CliIo } from './cli-io.js';
import { TableSpecError, connect, describeSpec, explainFailure, parseTableSpec, reachable } from './bigtable-endpoint.js';
import { CellWriter, RateLimiter, aggregateFamilies, rowBytes } from './cell-writer.js';
import {
  CELL_FORMATS,
  CSV_HEADER,
  type CellFormat,
  FormatError,
  SEQFILE_MAGIC,
  cellFromCsv,
  cellFromJsonl,
  cellToCsv,
  cellToJsonl,
  cellToSeqfile,
  readSeqfile,
} from './cell-formats.js';
import { type Cell, type CellRow, readRange } from './table-cells.js';
import { TransferProgress } from './transfer-progress.js';
import { formatBytes, formatCount, formatMillis } from '../units.js';

export interface ExportOptions {
  readonly format?: string | undefined;
  readonly output?: string | undefined;
}

export interface ImportOptions {
  readonly format?: string | undefined;
  readonly strict?: boolean | undefined;
  readonly maxRowsPerSecond?: string | undefined;
}

/** Where export writes and import reads when no file is named: injected by tests, the process's own streams otherwise. */
export interface DataStreams {
  readonly stdout: Writable;
  readonly stdin: Readable;
}

function formatOf(flag: string | undefined, file: string | undefined): CellFormat {
  const f = flag ?? (file === undefined ? undefined : /\.(jsonl|csv|seqfile)$/.exec(file)?.[1]) ?? 'jsonl';
  if (!(CELL_FORMATS as readonly string[]).includes(f))
    throw new TableSpecError(`--format must be one of ${CELL_FORMATS.join(', ')}, not "${f}"`);
  return f as CellFormat;
}

/**
 * `tabletop export TABLE [--format jsonl|csv|seqfile] [--output FILE]`: every cell version of the table with its
 * timestamp, one record per cell (cell-formats.ts, README "Moving data"), to FILE or stdout. Rows stream from
 * ReadRows to the file with backpressure: memory stays bounded by one row and the stream buffers, whatever the
 * table's size. Progress goes to stderr. Exit 0 done; 1 a failure; 2 a bad command line.
 */
export async function exportCommand(table: string, opts: ExportOptions, io: CliIo, streams: DataStreams): Promise<number> {
  const env = io.env ?? {};
  let spec;
  let format: CellFormat;
  try {
    spec = parseTableSpec(table, env);
    format = formatOf(opts.format, opts.output);
  } catch (e) {
    if (e instanceof TableSpecError) return fail(io, 'export', e.message, 2);
    throw e;
  }
  const out = opts.output === undefined || opts.output === '-' ? streams.stdout : createWriteStream(opts.output);
  const conn = connect(spec, env);
  const progress = new TransferProgress('export', io.stderr);
  const began = performance.now();
  const write = async (chunk: string | Buffer): Promise<void> => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  try {
    await reachable(conn);
    if (format === 'csv') await write(CSV_HEADER + '\n');
    if (format === 'seqfile') await write(SEQFILE_MAGIC);
    const encode =
      format === 'jsonl' ? (c: Cell) => cellToJsonl(c) + '\n' : format === 'csv' ? (c: Cell) => cellToCsv(c) + '\n' : cellToSeqfile;
    for await (const row of readRange(conn, { start: Buffer.alloc(0), end: Buffer.alloc(0) })) {
      for (const c of row.cells) await write(encode(c));
      progress.rows++;
      progress.cells += row.cells.length;
      progress.bytes += rowBytes(row);
    }
    if (out !== streams.stdout) {
      out.end();
      await once(out, 'finish');
    } else {
      await new Promise<void>((resolve, reject) => out.write('', (e) => (e == null ? resolve() : reject(e))));
    }
  } catch (e) {
    // A reader that stopped early (`| head`) is not a failure of the export.
    if ((e as { code?: unknown }).code === 'EPIPE') return 0;
    return fail(io, 'export', explainFailure(e, env), 1);
  } finally {
    progress.stop();
    await conn.close();
  }
  io.stderr(
    `tabletop export: ${describeSpec(spec)}: ${formatCount(progress.rows)} rows, ${formatCount(progress.cells)} cells, ${formatBytes(progress.bytes)} as ${format}` +
      ` to ${opts.output ?? 'stdout'} in ${formatMillis(performance.now() - began)}`,
  );
  return 0;
}

/**
 * `tabletop import FILE TABLE [--format ...] [--strict]`: writes every cell of an export into the table, with
 * its timestamp (so importing twice changes nothing), consecutive cells of a row in one MutateRows entry, in
 * batches. A record that cannot be read is reported on stderr with its line (seqfile: record) number and skipped;
 * with --strict the first one stops the import (nothing after it is written; what came before is). The table and its
 * families must exist (tabletop copy, or tabletop schema apply, make them). Exit 0 done; 1 a failure, or bad
 * records were skipped; 2 a bad command line.
 */
export async function importCommand(file: string, table: string, opts: ImportOptions, io: CliIo, streams: DataStreams): Promise<number> {
  const env = io.env ?? {};
  let spec;
  let format: CellFormat;
  let limiter: RateLimiter;
  try {
    spec = parseTableSpec(table, env);
    format = formatOf(opts.format, file === '-' ? undefined : file);
    const rate = opts.maxRowsPerSecond === undefined ? undefined : Number(opts.maxRowsPerSecond);
    if (rate !== undefined && !(rate > 0))
      throw new TableSpecError(`--max-rows-per-second must be a positive number, not "${opts.maxRowsPerSecond}"`);
    limiter = new RateLimiter({ maxRowsPerSecond: rate });
  } catch (e) {
    if (e instanceof TableSpecError) return fail(io, 'import', e.message, 2);
    throw e;
  }
  if (file !== '-' && !existsSync(file)) return fail(io, 'import', `${file}: no such file`, 2);
  const conn = connect(spec, env);
  let bad = 0;
  const unit = format === 'seqfile' ? 'record' : 'line';
  try {
    await reachable(conn);
  } catch (e) {
    await conn.close();
    return fail(io, 'import', explainFailure(e, env), 1);
  }
  const input = file === '-' ? streams.stdin : createReadStream(file);
  const writer = new CellWriter(
    conn,
    limiter,
    (origin, message) => {
      bad++;
      io.stderr(`tabletop import: ${file}: ${origin}: refused by the server: ${message}`);
    },
    await aggregateFamilies(conn),
  );
  const progress = new TransferProgress('import', io.stderr);
  const began = performance.now();
  let row: CellRow | undefined;
  let first = 0;
  let last = 0;
  const add = async (c: Cell, at: number): Promise<void> => {
    if (row !== undefined && row.key.equals(c.key)) {
      row.cells.push(c);
      last = at;
      return;
    }
    await addRow();
    row = { key: c.key, cells: [c] };
    first = last = at;
    progress.rows++;
  };
  const addRow = async (): Promise<void> => {
    if (row === undefined) return;
    row.origin = first === last ? `${unit} ${first}` : `${unit}s ${first}-${last}`;
    await writer.add(row);
  };
  const cellRead = (c: Cell): void => {
    progress.cells++;
    progress.bytes += c.key.length + c.family.length + c.qualifier.length + c.value.length + 8;
  };
  try {
    if (format === 'seqfile') {
      try {
        for await (const { cell, record } of readSeqfile(input as AsyncIterable<Buffer>)) {
          cellRead(cell);
          await add(cell, record);
        }
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        bad++;
        io.stderr(`tabletop import: ${file}: ${e.message}; the rest of the file cannot be read`);
      }
    } else {
      const lines = createInterface({ input, crlfDelay: Infinity });
      let n = 0;
      for await (const line of lines) {
        n++;
        if (format === 'csv' && n === 1 && line === CSV_HEADER) continue;
        if (line.trim() === '') continue;
        let cell: Cell;
        try {
          cell = format === 'jsonl' ? cellFromJsonl(line) : cellFromCsv(line);
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          bad++;
          io.stderr(`tabletop import: ${file}: line ${n}: ${e.message}`);
          if (opts.strict === true) break;
          continue;
        }
        cellRead(cell);
        await add(cell, n);
      }
    }
    await addRow();
    await writer.flush();
    if (bad > 0 && opts.strict === true)
      return fail(
        io,
        'import',
        `stopped at the first bad record (--strict); the ${formatCount(writer.rowsWritten)} rows before it were written`,
        1,
      );
  } catch (e) {
    return fail(io, 'import', `${explainFailure(e, env)} (importing again is safe: cells keep their timestamps)`, 1);
  } finally {
    progress.stop();
    await conn.close();
  }
  io.stderr(
    `tabletop import: ${describeSpec(spec)}: ${formatCount(writer.rowsWritten)} rows, ${formatCount(writer.cellsWritten)} cells, ${formatBytes(writer.bytesWritten)} from ${file} (${format}) in ${formatMillis(performance.now() - began)}` +
      (bad > 0 ? `; ${formatCount(bad)} bad ${unit}s (or rows refused) skipped, listed above` : ''),
  );
  return bad > 0 ? 1 : 0;
}

function fail(io: CliIo, command: string, message: string, code: number): number {
  io.stderr(`tabletop ${command}: ${message}`);
  return code;
}
