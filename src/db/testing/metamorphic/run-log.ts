import { createHash } from 'node:crypto';
import type { FamilyModification, RowPuller, TableInfo } from '../../api.js';
import { type ByteString, fromBytes, printable } from '../../../model/bytes.js';
import type { Cell, Row } from '../../../model/cell.js';
import { isTabletopError } from '../../../model/errors.js';
import { describeGcRule } from '../../../model/gc.js';
import type { Mutation, RowMutation } from '../../../model/mutation.js';
import type { OpLog } from './op-arbitraries.js';
import { type FamilyMod, type Op, showOp, showTimestamp } from './ops.js';
import type { System } from './systems.js';
import { FAMILIES, INSTANCE, TABLES, type TableId, bulkKey, bulkValue, tableName } from './universe.js';

/**
 * Runs an op log on one system and returns its transcript: one entry per
 * operation (its result or its error, code and message) plus a final dump of
 * every table. Transcripts of the same log must be equal on every system.
 *
 * With `exactReadStats` (logs without physical GC), reads also report their
 * statistics and last scanned key: both depend on which stored rows and cells
 * exist, which is the same everywhere unless garbage was collected physically.
 *
 * An error that is not a TabletopError is a bug of its own: it is rethrown,
 * naming the system and the operation.
 */
export async function runLog(system: System, log: OpLog): Promise<string[]> {
  const transcript: string[] = [];
  const exactReadStats = !log.physicalGc;
  for (let i = 0; i < log.ops.length; i++) {
    const op = log.ops[i]!;
    let result: string;
    try {
      result = await outcome(() => apply(system, op, exactReadStats));
    } catch (e) {
      throw new Error(`${system.name}: op ${i} (${showOp(op)}) threw ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, {
        cause: e,
      });
    }
    transcript.push(`${i} ${op.kind}: ${result}`);
  }
  transcript.push(`end: ${await dumpAll(system)}`);
  if (system.backgroundErrors.length > 0) {
    transcript.push(`background errors: ${system.backgroundErrors.map(String).join('; ')}`);
  }
  return transcript;
}

/** The result of `f`, or its TabletopError as "Code: message". */
async function outcome(f: () => Promise<string>): Promise<string> {
  try {
    return await f();
  } catch (e) {
    if (isTabletopError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
}

async function apply(system: System, op: Op, exactReadStats: boolean): Promise<string> {
  const { db } = system;
  switch (op.kind) {
    case 'createTable': {
      const info = await db.createTable(tableName(op.table), {
        families: op.families.map((name) => ({ name, ...FAMILIES[name] })),
        initialSplits: op.splits,
        deletionProtection: false,
      });
      return `ok ${showTable(info)}`;
    }
    case 'deleteTable':
      await db.deleteTable(tableName(op.table));
      return 'ok';
    case 'deleteInstance':
      await db.deleteInstance(INSTANCE);
      return 'ok';
    case 'modifyFamilies':
      return `ok ${showTable(await db.modifyColumnFamilies(tableName(op.table), op.mods.map(modification), false))}`;
    case 'dropRowRange':
      await db.dropRowRange(tableName(op.table), op.prefix === undefined ? { kind: 'all' } : { kind: 'prefix', prefix: op.prefix });
      return 'ok';
    case 'mutateRow':
      await db.mutateRow(tableName(op.table), op.key, op.mutations);
      return 'ok';
    case 'mutateRows': {
      const results = await db.mutateRows(tableName(op.table), op.entries);
      return results.map((r, i) => `[${i}] ${r === undefined ? 'ok' : `${r.code}: ${r.message}`}`).join(' ');
    }
    case 'bulkLoad': {
      const entries: RowMutation[] = [];
      for (let i = op.start; i < op.start + op.count; i++) {
        const key = bulkKey(i);
        const mutation: Mutation = op.delete
          ? { kind: 'deleteFromRow' }
          : { kind: 'setCell', family: op.family, qualifier: 'b', timestamp: op.timestamp, value: bulkValue(key, op.load, op.size) };
        entries.push({ key, mutations: [mutation] });
      }
      const results = await db.mutateRows(tableName(op.table), entries);
      const failed = results.flatMap((r, i) => (r === undefined ? [] : [`[${i}] ${r.code}: ${r.message}`]));
      return failed.length === 0 ? 'ok' : failed.join(' ');
    }
    case 'concurrentMutations': {
      const name = tableName(op.table);
      const results = await Promise.all(op.entries.map((e) => outcome(async () => (await db.mutateRow(name, e.key, e.mutations), 'ok'))));
      return results.map((r, i) => `[${i}] ${r}`).join(' ');
    }
    case 'burst': {
      const results = await Promise.all(op.ops.map((o) => outcome(() => apply(system, o, exactReadStats))));
      return results.map((r, i) => `[${i}] ${r}`).join(' ');
    }
    case 'checkAndMutate': {
      const matched = await db.checkAndMutateRow(tableName(op.table), op.key, op.predicate, op.trueMutations, op.falseMutations);
      return `matched=${matched}`;
    }
    case 'readModifyWrite':
      return showRow(await db.readModifyWriteRow(tableName(op.table), op.key, op.rules));
    case 'read': {
      const reader = db.readRows(tableName(op.table), { rows: op.rows, filter: op.filter, limit: op.limit, reversed: op.reversed });
      const rows = await drain(reader);
      const shown = rows.map(showRow).join(' | ');
      if (!exactReadStats) return `[${shown}]`;
      const s = reader.stats;
      const last = reader.lastScannedKey === undefined ? '-' : quote(reader.lastScannedKey);
      return `[${shown}] seen ${s.rowsSeen} rows/${s.cellsSeen} cells, returned ${s.rowsReturned}/${s.cellsReturned}, last scanned ${last}`;
    }
    case 'scanWhile': {
      const reader = db.readRows(tableName(op.table), { rows: op.rows, filter: op.filter, limit: op.limit, reversed: op.reversed });
      const before: Row[] = [];
      const during: string[] = [];
      try {
        for (let i = 0; i < op.first; i++) {
          const r = await reader.next();
          if (r === undefined) break;
          before.push(r);
        }
        for (const d of op.during) during.push(await outcome(() => apply(system, d, exactReadStats)));
      } catch (e) {
        reader.close();
        throw e;
      }
      const after = await drain(reader);
      return `[${before.map(showRow).join(' | ')}] then {${during.join('; ')}} then [${after.map(showRow).join(' | ')}]`;
    }
    case 'tick':
      system.clock.advanceMillis(op.millis);
      return 'ok';
    case 'gcSweep':
      await db.runGcSweep();
      return 'ok';
    case 'flush':
    case 'compact':
    case 'restart':
    case 'crash':
      // No-op on the memory engine; on the disk engine the data moves (or is reloaded), so
      // every system shows its whole contents right after.
      await system.maintain(op);
      return `ok; ${await dumpAll(system)}`;
  }
}

function modification(m: FamilyMod): FamilyModification {
  switch (m.kind) {
    case 'create':
      return { kind: 'create', family: m.family, gcRule: FAMILIES[m.family].gcRule, valueType: FAMILIES[m.family].valueType };
    case 'drop':
      return { kind: 'drop', family: m.family };
    case 'update':
      return { kind: 'update', family: m.family, gcRule: m.gcRule, updateGcRule: true };
  }
}

/** Every table's schema and rows, in a fixed order. */
async function dumpAll(system: System): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) parts.push(`${t} ${await outcome(() => dumpTable(system, t))}`);
  return parts.join(' // ');
}

async function dumpTable(system: System, t: TableId): Promise<string> {
  const name = tableName(t);
  const info = system.db.getTable(name);
  const rows = await drain(system.db.readRows(name, { rows: { keys: [], ranges: [] }, filter: undefined, limit: 0, reversed: false }));
  return `${showTable(info)} rows [${rows.map(showRow).join(' | ')}]`;
}

async function drain(reader: RowPuller): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    for (let r = await reader.next(); r !== undefined; r = await reader.next()) rows.push(r);
  } finally {
    reader.close();
  }
  return rows;
}

function showTable(info: TableInfo): string {
  const families = info.families.map((f) => {
    const type = f.valueType.kind === 'bytes' ? '' : ` ${f.valueType.aggregator}`;
    return `${f.name}(${describeGcRule(f.gcRule)}${type})`;
  });
  return `{${families.join(', ')}}`;
}

const quote = (s: ByteString): string => `'${printable(s)}'`;

/** A value; a long one as its start, length and a digest of all of it (transcripts stay readable, comparisons exact). */
function showValue(v: Uint8Array): string {
  if (v.byteLength <= 32) return quote(fromBytes(v));
  const digest = createHash('sha256').update(v).digest('hex').slice(0, 16);
  return `${quote(fromBytes(v.subarray(0, 12)))}…(${v.byteLength} bytes, sha256 ${digest})`;
}

function showCell(c: Cell): string {
  const labels = c.labels.length > 0 ? `[${c.labels.join(',')}]` : '';
  return `${c.family}:${quote(c.qualifier)}@${showTimestamp(c.timestamp)}=${showValue(c.value)}${labels}`;
}

function showRow(r: Row): string {
  return `${quote(r.key)}: ${r.cells.map(showCell).join(' ')}`;
}
