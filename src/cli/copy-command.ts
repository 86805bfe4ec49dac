import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { CliIo } from './cli-io.js';
import {
  type Connection,
  type TableSpec,
  TableSpecError,
  connect,
  describeSpec,
  explainFailure,
  reachable,
  parseTableSpec,
} from './bigtable-endpoint.js';
import { CellWriter, RateLimiter, familiesWithValueType, rowBytes } from './cell-writer.js';
import { cellToSeqfile } from './cell-formats.js';
import { type KeyRange, readRange, sampleRanges } from './table-cells.js';
import { TransferProgress } from './transfer-progress.js';
import { formatBytes, formatCount, formatMillis } from '../units.js';

export interface CopyOptions {
  readonly from: string;
  readonly to: string;
  readonly state?: string | undefined;
  readonly parallel?: string | undefined;
  readonly maxRowsPerSecond?: string | undefined;
  readonly maxMibPerSecond?: string | undefined;
  readonly verify?: boolean | undefined;
}

/** The state file of a copy: its ranges (fixed at the start) and the ones finished. */
interface CopyState {
  readonly from: string;
  readonly to: string;
  readonly ranges: { start: string; end: string }[];
  readonly done: number[];
}

/**
 * `tabletop copy --from SPEC --to SPEC`: copies a table's schema and every cell version (with its timestamp)
 * between two Bigtable API endpoints (bigtable-endpoint.ts has the specs).
 *
 * 1. Schema: the destination table is created with the source's column families (GC rules, value types) and
 *    the source's SampleRowKeys as initial splits, unless it exists (then missing families are added).
 * 2. Data: the source's SampleRowKeys ranges are copied by --parallel workers (default 4), each reading its range
 *    with ReadRows and writing MutateRows batches with the cells' own timestamps, so copying a range twice is
 *    harmless. After each range the state file (--state, default ./tabletop-copy-<hash of from and to>.json)
 *    records it as done: a copy that is interrupted (Ctrl-C, kill -9, a lost connection) and run again with the
 *    same --from/--to skips the finished ranges and redoes the rest. The file is removed after a copy that verified.
 * 3. Verification (unless --no-verify): both tables are read whole, counting rows and cells and summing a SHA-256
 *    of each cell (key, family, qualifier, timestamp, value; not labels) into a 256-bit sum, an order-independent
 *    checksum. They must be equal: writes to either table during the copy make them differ.
 *
 * Exit code 0 copied (and verified); 1 a failure or a mismatch; 2 a bad command line.
 */
export async function copyCommand(opts: CopyOptions, io: CliIo): Promise<number> {
  const env = io.env ?? {};
  const fail = (message: string, code: number): number => {
    io.stderr(`tabletop copy: ${message}`);
    return code;
  };
  let from: TableSpec;
  let to: TableSpec;
  let parallel: number;
  let limits: { maxRowsPerSecond?: number; maxMibPerSecond?: number };
  try {
    from = parseTableSpec(opts.from, env);
    to = parseTableSpec(opts.to, env);
    parallel = positive(opts.parallel ?? '4', '--parallel');
    limits = {
      ...(opts.maxRowsPerSecond === undefined ? {} : { maxRowsPerSecond: positive(opts.maxRowsPerSecond, '--max-rows-per-second') }),
      ...(opts.maxMibPerSecond === undefined ? {} : { maxMibPerSecond: positive(opts.maxMibPerSecond, '--max-mib-per-second') }),
    };
  } catch (e) {
    if (e instanceof TableSpecError) return fail(e.message, 2);
    throw e;
  }
  if (describeSpec(from) === describeSpec(to)) return fail('--from and --to are the same table', 2);
  const statePath =
    opts.state ??
    `tabletop-copy-${createHash('sha256')
      .update(`${describeSpec(from)}\n${describeSpec(to)}`)
      .digest('hex')
      .slice(0, 12)}.json`;
  const source = connect(from, env);
  const dest = connect(to, env);
  const began = performance.now();
  try {
    await Promise.all([reachable(source), reachable(dest)]);
    let state = readState(statePath, describeSpec(from), describeSpec(to));
    const resumed = state !== undefined;
    if (state === undefined) {
      const ranges = await sampleRanges(source);
      state = {
        from: describeSpec(from),
        to: describeSpec(to),
        ranges: ranges.map((r) => ({ start: r.start.toString('base64'), end: r.end.toString('base64') })),
        done: [],
      };
    }
    const ranges: KeyRange[] = state.ranges.map((r) => ({ start: Buffer.from(r.start, 'base64'), end: Buffer.from(r.end, 'base64') }));
    const { created, aggregates } = await copySchema(source, dest, ranges);
    writeState(statePath, state);
    io.stderr(
      `tabletop copy: ${describeSpec(from)} -> ${describeSpec(to)}: ${created}; ${plural(ranges.length, 'range', 'ranges')}` +
        (resumed ? `, resuming (${state.done.length} done before, state in ${statePath})` : ` (state in ${statePath})`),
    );
    const done = new Set(state.done);
    const todo = ranges.map((_, i) => i).filter((i) => !done.has(i));
    const progress = new TransferProgress('copy', io.stderr, { count: ranges.length, unit: 'ranges' });
    progress.done = done.size;
    const limiter = new RateLimiter(limits);
    const finished = [...state.done];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const i = todo[next++]!;
        const writer = new CellWriter(dest, limiter, undefined, aggregates);
        for await (const row of readRange(source, ranges[i]!)) {
          await writer.add(row);
          progress.rows++;
          progress.cells += row.cells.length;
          progress.bytes += rowBytes(row);
        }
        await writer.flush();
        finished.push(i);
        progress.done++;
        writeState(statePath, { ...state, done: finished });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(parallel, Math.max(todo.length, 1)) }, worker));
    } finally {
      progress.stop();
    }
    io.stderr(progress.line());
    const copiedMillis = performance.now() - began;
    io.stdout(
      `copied ${formatCount(progress.rows)} rows, ${formatCount(progress.cells)} cells, ${formatBytes(progress.bytes)} in ${formatMillis(copiedMillis)}` +
        ` (${plural(todo.length, 'range', 'ranges')}${resumed ? `; ${ranges.length - todo.length} were done before the resume` : ''})`,
    );
    if (opts.verify === false) {
      io.stdout('not verified (--no-verify)');
      return 0;
    }
    io.stderr('tabletop copy: verifying: reading both tables whole...');
    const [a, b] = await Promise.all([tableDigest(source), tableDigest(dest)]);
    io.stdout(`source:      ${formatCount(a.rows)} rows, ${formatCount(a.cells)} cells, checksum ${a.checksum}`);
    io.stdout(`destination: ${formatCount(b.rows)} rows, ${formatCount(b.cells)} cells, checksum ${b.checksum}`);
    if (a.rows !== b.rows || a.cells !== b.cells || a.checksum !== b.checksum)
      return fail('the tables differ (was either written to during the copy?); run the copy again to redo every range, or compare them', 1);
    io.stdout('verified: the same rows, cells and checksum on both sides');
    rmSync(statePath, { force: true });
    return 0;
  } catch (e) {
    return fail(`${explainFailure(e, env)} (run the same command again to resume)`, 1);
  } finally {
    await Promise.all([source.close(), dest.close()]);
  }
}

function positive(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new TableSpecError(`${flag} must be a positive number, not "${v}"`);
  return n;
}

function readState(path: string, from: string, to: string): CopyState | undefined {
  if (!existsSync(path)) return undefined;
  const state = JSON.parse(readFileSync(path, 'utf8')) as CopyState;
  if (state.from !== from || state.to !== to)
    throw new Error(`the state file ${path} belongs to the copy ${state.from} -> ${state.to}: remove it or give another --state`);
  return state;
}

/** Replaces the state file whole (a rename), so that a kill leaves the old one or the new one. */
function writeState(path: string, state: CopyState): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(state));
  renameSync(`${path}.tmp`, path);
}

const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;

/** Creates the destination with the source's families and splits, or adds the families it lacks; says which. */
async function copySchema(source: Connection, dest: Connection, ranges: KeyRange[]): Promise<{ created: string; aggregates: Set<string> }> {
  const [table] = await source.admin.getTable({ name: source.name, view: 'SCHEMA_VIEW' });
  const families = (table.columnFamilies ?? {}) as Record<string, { gcRule?: unknown; valueType?: unknown }>;
  const columnFamilies = Object.fromEntries(
    Object.entries(families).map(([name, f]) => [
      name,
      { ...(f.gcRule == null ? {} : { gcRule: f.gcRule }), ...(f.valueType == null ? {} : { valueType: f.valueType }) },
    ]),
  );
  const aggregates = familiesWithValueType(families);
  const parent = dest.name.slice(0, dest.name.indexOf('/tables/'));
  try {
    await dest.admin.createTable({
      parent,
      tableId: dest.spec.table,
      table: { columnFamilies },
      initialSplits: ranges.slice(1).map((r) => ({ key: r.start })),
    });
    return {
      created: `created the destination table with ${plural(Object.keys(columnFamilies).length, 'family', 'families')} and ${plural(ranges.length - 1, 'split', 'splits')}`,
      aggregates,
    };
  } catch (e) {
    if ((e as { code?: number }).code !== ALREADY_EXISTS) throw e;
  }
  let existing: Record<string, unknown>;
  try {
    const [t] = await dest.admin.getTable({ name: dest.name, view: 'SCHEMA_VIEW' });
    existing = (t.columnFamilies ?? {}) as Record<string, unknown>;
  } catch (e) {
    if ((e as { code?: number }).code === NOT_FOUND) throw new Error(`the destination ${dest.name} could not be created or read`);
    throw e;
  }
  const missing = Object.keys(columnFamilies).filter((f) => !(f in existing));
  if (missing.length > 0)
    await dest.admin.modifyColumnFamilies({ name: dest.name, modifications: missing.map((id) => ({ id, create: columnFamilies[id] })) });
  return { created: `the destination table exists${missing.length > 0 ? `; added the families ${missing.join(', ')}` : ''}`, aggregates };
}

/** What verification compares: rows, cells, and the sum of the cells' SHA-256 mod 2^256 (hex, its first 16 digits). */
export async function tableDigest(conn: Connection): Promise<{ rows: number; cells: number; checksum: string }> {
  let rows = 0;
  let cells = 0;
  let sum = 0n;
  const whole = { start: Buffer.alloc(0), end: Buffer.alloc(0) };
  for await (const row of readRange(conn, whole)) {
    rows++;
    for (const c of row.cells) {
      cells++;
      sum += BigInt(`0x${createHash('sha256').update(cellToSeqfile(c)).digest('hex')}`);
    }
  }
  sum &= (1n << 256n) - 1n;
  return { rows, cells, checksum: sum.toString(16).padStart(64, '0').slice(0, 16) };
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
