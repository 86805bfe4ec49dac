import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlValue } from '../types.js';
import { RowReader, RowWriter, rowSize } from './spill-codec.js';

/**
 * External sorting for the executor's blocking operators (ORDER BY, GROUP BY, DISTINCT): rows are held in memory
 * up to an estimated byte budget; past it the buffer is sorted and written as a run to a temporary file (in a
 * directory of its own under `directory`, default os.tmpdir()), and the sorted output k-way merges the runs with
 * what is still in memory. The merge is stable: rows that compare equal come out in the order they were added
 * (each run is sorted stably and ties between runs go to the earlier run). At most FAN_IN runs are open at once
 * (more are merged into longer runs first). The files are removed when the output ends, fails or is abandoned,
 * and by `close`.
 */

export interface SpillOptions {
  /** The estimated bytes of rows an operator holds before it spills (exec/spill-codec.ts estimatedSize). */
  readonly budgetBytes: number;
  /** Where the temporary files go (default os.tmpdir()). */
  readonly directory?: string;
}

/** 64 MiB of estimated row bytes per blocking operator. */
export const DEFAULT_SPILL: SpillOptions = { budgetBytes: 64 * 1024 * 1024 };

/** What the blocking operators of one query held and spilled (reported in the query's stats). */
export interface SpillStats {
  /** The most estimated bytes one operator held in memory at once. */
  peakHeldBytes: number;
  /** Runs written to temporary files. */
  spilledRuns: number;
}

export type RowCompare = (a: readonly SqlValue[], b: readonly SqlValue[]) => number;

const FAN_IN = 32;
const READ_CHUNK = 64 * 1024;
const WRITE_CHUNK = 1024 * 1024;

export class SpillSorter {
  private buffer: SqlValue[][] = [];
  private held = 0;
  private readonly runs: string[] = [];
  private dir: string | undefined;
  private files = 0;

  constructor(
    private readonly cmp: RowCompare,
    private readonly options: SpillOptions,
    private readonly stats: SpillStats,
  ) {}

  /** Rows added so far that are still in memory. */
  get rowsHeld(): number {
    return this.buffer.length;
  }

  /** Adds a row; a promise (to await before the next add) when it spilled the rows held. */
  add(row: SqlValue[]): Promise<void> | undefined {
    this.buffer.push(row);
    this.held += rowSize(row);
    if (this.held > this.stats.peakHeldBytes) this.stats.peakHeldBytes = this.held;
    return this.held > this.options.budgetBytes ? this.spill() : undefined;
  }

  /** When nothing was spilled: the rows added, in order (the sorter is spent); else undefined. */
  inMemory(): SqlValue[][] | undefined {
    if (this.runs.length > 0) return undefined;
    const rows = this.buffer.sort(this.cmp); // Array.prototype.sort is stable.
    this.buffer = [];
    this.held = 0;
    return rows;
  }

  /** Every row added, in order; the sorter is spent afterwards (and its files removed). */
  async *sorted(): AsyncGenerator<SqlValue[]> {
    try {
      this.buffer.sort(this.cmp); // Array.prototype.sort is stable.
      const memory = this.buffer;
      this.buffer = [];
      this.held = 0;
      if (this.runs.length === 0) {
        yield* memory;
        return;
      }
      while (this.runs.length > FAN_IN - 1) {
        const merged = await this.newFile();
        const writer = await RunWriter.create(merged);
        try {
          for await (const row of this.merge(this.runs.slice(0, FAN_IN), [])) await writer.write(row);
        } finally {
          await writer.close();
        }
        for (const f of this.runs.splice(0, FAN_IN, merged)) await rm(f, { force: true });
      }
      yield* this.merge(this.runs, memory);
    } finally {
      await this.close();
    }
  }

  /** Removes the temporary files (idempotent). */
  async close(): Promise<void> {
    this.buffer = [];
    this.runs.length = 0;
    const dir = this.dir;
    this.dir = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }

  private async newFile(): Promise<string> {
    this.dir ??= await mkdtemp(join(this.options.directory ?? tmpdir(), 'tabletop-sql-'));
    return join(this.dir, `run-${this.files++}`);
  }

  private async spill(): Promise<void> {
    this.buffer.sort(this.cmp);
    const rows = this.buffer;
    this.buffer = [];
    this.held = 0;
    const file = await this.newFile();
    const writer = await RunWriter.create(file);
    try {
      for (const row of rows) await writer.write(row);
    } finally {
      await writer.close();
    }
    this.runs.push(file);
    this.stats.spilledRuns++;
  }

  /** Merges runs (in the order they were written) and then the in-memory rows, ties to the earlier source. */
  private async *merge(files: readonly string[], memory: readonly SqlValue[][]): AsyncGenerator<SqlValue[]> {
    const readers = await Promise.all(files.map((f) => RunReader.open(f)));
    try {
      const sources: (() => Promise<SqlValue[] | undefined>)[] = readers.map((r) => () => r.next());
      let m = 0;
      sources.push(() => Promise.resolve(memory[m++]));
      const heap = new MergeHeap(this.cmp);
      for (const [i, next] of sources.entries()) {
        const row = await next();
        if (row !== undefined) heap.push({ row, source: i });
      }
      for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
        yield top.row;
        const row = await sources[top.source]!();
        if (row !== undefined) heap.push({ row, source: top.source });
      }
    } finally {
      await Promise.all(readers.map((r) => r.close()));
    }
  }
}

interface HeapEntry {
  readonly row: SqlValue[];
  readonly source: number;
}

/** A binary min-heap of the sources' current rows; equal rows order by source (the earlier run first). */
class MergeHeap {
  private readonly items: HeapEntry[] = [];

  constructor(private readonly cmp: RowCompare) {}

  private less(a: HeapEntry, b: HeapEntry): boolean {
    const c = this.cmp(a.row, b.row);
    return c < 0 || (c === 0 && a.source < b.source);
  }

  push(e: HeapEntry): void {
    const items = this.items;
    items.push(e);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): HeapEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < items.length && this.less(items[l]!, items[min]!)) min = l;
      if (r < items.length && this.less(items[r]!, items[min]!)) min = r;
      if (min === i) break;
      [items[i], items[min]] = [items[min]!, items[i]!];
      i = min;
    }
    return top;
  }
}

class RunWriter {
  private readonly writer = new RowWriter();

  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<RunWriter> {
    return new RunWriter(await open(path, 'w'));
  }

  async write(row: readonly SqlValue[]): Promise<void> {
    this.writer.writeRow(row);
    if (this.writer.length >= WRITE_CHUNK) await this.handle.write(this.writer.take());
  }

  async close(): Promise<void> {
    try {
      if (this.writer.length > 0) await this.handle.write(this.writer.take());
    } finally {
      await this.handle.close();
    }
  }
}

class RunReader {
  private reader = new RowReader(Buffer.alloc(0));
  private eof = false;

  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<RunReader> {
    return new RunReader(await open(path, 'r'));
  }

  async next(): Promise<SqlValue[] | undefined> {
    for (;;) {
      const row = this.reader.readRow();
      if (row !== undefined) return row;
      if (this.eof) {
        if (this.reader.rest().length > 0) throw new Error('spill file: truncated run');
        return undefined;
      }
      const chunk = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await this.handle.read(chunk, 0, READ_CHUNK, null);
      if (bytesRead === 0) this.eof = true;
      this.reader = new RowReader(Buffer.concat([this.reader.rest(), chunk.subarray(0, bytesRead)]));
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
