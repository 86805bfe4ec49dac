import { type ByteString, fromBytes, printable } from '../../../model/bytes.js';
import type { ByteBound, RowFilter } from '../../../model/filter/index.js';
import type { GcRule } from '../../../model/gc-rule.js';
import { describeGcRule } from '../../../model/gc.js';
import type { RangeBound, RowSet } from '../../../model/key-range.js';
import type { Mutation, ReadModifyWriteRule, RowMutation } from '../../../model/mutation.js';
import { type FamilyName, T0, type TableId, bulkKey } from './universe.js';

/**
 * One operation of a metamorphic op log. Every system (the memory engine
 * and each disk-engine configuration) applies the same log; the database
 * operations produce results that must agree. The maintenance operations
 * (flush, compact, restart, crash) act on the disk engine only and are no-ops
 * for the memory engine; after each, every system dumps all its tables, so
 * that what a maintenance step changed is compared at once.
 */
export type Op =
  | {
      readonly kind: 'createTable';
      readonly table: TableId;
      readonly families: readonly FamilyName[];
      readonly splits: readonly ByteString[];
    }
  | { readonly kind: 'deleteTable'; readonly table: TableId }
  /** Deletes the instance and with it both tables (their stores are dropped in the background). */
  | { readonly kind: 'deleteInstance' }
  | { readonly kind: 'modifyFamilies'; readonly table: TableId; readonly mods: readonly FamilyMod[] }
  | { readonly kind: 'dropRowRange'; readonly table: TableId; readonly prefix: ByteString | undefined }
  | { readonly kind: 'mutateRow'; readonly table: TableId; readonly key: ByteString; readonly mutations: readonly Mutation[] }
  | { readonly kind: 'mutateRows'; readonly table: TableId; readonly entries: readonly RowMutation[] }
  /**
   * One MutateRows of `count` rows bulkKey(start..), each a SetCell of
   * bulkValue(key, load, size) (or, with `delete`, a DeleteFromRow).
   */
  | {
      readonly kind: 'bulkLoad';
      readonly table: TableId;
      readonly start: number;
      readonly count: number;
      readonly family: FamilyName;
      readonly timestamp: number;
      readonly load: number;
      readonly size: number;
      readonly delete: boolean;
    }
  /** MutateRow calls on distinct keys, all in flight at once (group commit on the disk engine). */
  | { readonly kind: 'concurrentMutations'; readonly table: TableId; readonly entries: readonly RowMutation[] }
  /**
   * Writes issued all at once and awaited together (mutateRow, checkAndMutate,
   * readModifyWrite, mostly on one row): row locks serve them in call order,
   * so each must see the ones before it, whatever the engine's sync timing.
   */
  | { readonly kind: 'burst'; readonly ops: readonly Op[] }
  | {
      readonly kind: 'checkAndMutate';
      readonly table: TableId;
      readonly key: ByteString;
      readonly predicate: RowFilter | undefined;
      readonly trueMutations: readonly Mutation[];
      readonly falseMutations: readonly Mutation[];
    }
  | { readonly kind: 'readModifyWrite'; readonly table: TableId; readonly key: ByteString; readonly rules: readonly ReadModifyWriteRule[] }
  | {
      readonly kind: 'read';
      readonly table: TableId;
      readonly rows: RowSet;
      readonly filter: RowFilter | undefined;
      readonly limit: number;
      readonly reversed: boolean;
    }
  /**
   * A read that pulls `first` rows, lets the `during` operations run, then
   * pulls the rest: each row range is read as of the moment the reader
   * reached it, so writes, drops, flushes and compactions in between must
   * not show in a range already open.
   */
  | {
      readonly kind: 'scanWhile';
      readonly table: TableId;
      readonly rows: RowSet;
      readonly filter: RowFilter | undefined;
      readonly limit: number;
      readonly reversed: boolean;
      readonly first: number;
      readonly during: readonly Op[];
    }
  | { readonly kind: 'tick'; readonly millis: number }
  /** The database's GC sweep: physical garbage collection (only in logs that allow it). */
  | { readonly kind: 'gcSweep' }
  | { readonly kind: 'flush' }
  | { readonly kind: 'compact'; readonly major: boolean }
  | { readonly kind: 'restart' }
  /** Power loss after every operation was acknowledged; `tornSeed` garbles unsynced tails. */
  | { readonly kind: 'crash'; readonly tornSeed: number | undefined };

export type FamilyMod =
  | { readonly kind: 'create'; readonly family: FamilyName }
  | { readonly kind: 'drop'; readonly family: FamilyName }
  | { readonly kind: 'update'; readonly family: FamilyName; readonly gcRule: GcRule | undefined };

/** Operations that only the disk engine acts on. */
export const MAINTENANCE_OPS = new Set<Op['kind']>(['flush', 'compact', 'restart', 'crash']);

// ---------------------------------------------------------------- display

/** A timestamp relative to the clock's start, e.g. "T0+2000ms", or absolute for the distant past. */
export function showTimestamp(ts: number): string {
  if (ts === -1) return 'now';
  const d = ts - T0;
  if (Math.abs(d) < 1e12) return `T0${d < 0 ? '-' : '+'}${Math.abs(d) / 1000}ms`;
  return `${ts / 1000}ms`;
}

/** Byte strings in single quotes, non-printable bytes as \\xNN. */
const q = (s: ByteString): string => `'${printable(s)}'`;
const bytes = (b: Uint8Array): string => q(fromBytes(b));

export function showMutation(m: Mutation): string {
  switch (m.kind) {
    case 'setCell':
      return `set ${m.family}:${q(m.qualifier)}@${showTimestamp(m.timestamp)}=${bytes(m.value)}`;
    case 'deleteFromColumn':
      return `delcol ${m.family}:${q(m.qualifier)} [${showTimestamp(m.start)}, ${m.end === undefined ? '∞' : showTimestamp(m.end)})`;
    case 'deleteFromFamily':
      return `delfam ${m.family}`;
    case 'deleteFromRow':
      return 'delrow';
    case 'addToCell':
      return `add ${m.family}:${q(m.qualifier)}@${showTimestamp(m.timestamp)} ${m.input.kind === 'int' ? String(m.input.value) : bytes(m.input.value)}`;
    case 'mergeToCell':
      return `merge ${m.family}:${q(m.qualifier)}@${showTimestamp(m.timestamp)} ${bytes(m.input)}`;
  }
}

function showEntries(entries: readonly RowMutation[]): string {
  return entries.map((e) => `${q(e.key)}: ${e.mutations.map(showMutation).join(', ')}`).join(' | ');
}

function showRule(r: ReadModifyWriteRule): string {
  return r.kind === 'append' ? `append ${r.family}:${q(r.qualifier)} ${bytes(r.value)}` : `incr ${r.family}:${q(r.qualifier)} ${r.amount}`;
}

function showBound(b: RangeBound, side: 'start' | 'end'): string {
  if (b.kind === 'unbounded') return side === 'start' ? '(-∞' : '∞)';
  return side === 'start' ? `${b.kind === 'closed' ? '[' : '('}${q(b.key)}` : `${q(b.key)}${b.kind === 'closed' ? ']' : ')'}`;
}

function showRowSet(rows: RowSet): string {
  if (rows.keys.length === 0 && rows.ranges.length === 0) return 'all';
  const parts = [...rows.keys.map(q), ...rows.ranges.map((r) => `${showBound(r.start, 'start')}, ${showBound(r.end, 'end')}`)];
  return parts.join(' ');
}

function showByteBound(b: ByteBound, side: 'start' | 'end'): string {
  if (b.kind === 'unbounded') return side === 'start' ? '(-∞' : '∞)';
  return side === 'start' ? `${b.kind === 'closed' ? '[' : '('}${q(b.value)}` : `${q(b.value)}${b.kind === 'closed' ? ']' : ')'}`;
}

/** A filter in a compact prefix notation. */
export function showFilter(f: RowFilter): string {
  switch (f.kind) {
    case 'chain':
    case 'interleave':
      return `${f.kind}(${f.filters.map(showFilter).join(', ')})`;
    case 'condition':
      return `cond(${f.predicate === undefined ? '-' : showFilter(f.predicate)} ? ${f.trueFilter === undefined ? '-' : showFilter(f.trueFilter)} : ${f.falseFilter === undefined ? '-' : showFilter(f.falseFilter)})`;
    case 'sink':
    case 'passAll':
    case 'blockAll':
    case 'stripValue':
      return f.kind;
    case 'rowKeyRegex':
    case 'familyRegex':
    case 'qualifierRegex':
    case 'valueRegex':
      return `${f.kind}(${q(f.pattern)})`;
    case 'rowSample':
      return `rowSample(${f.probability})`;
    case 'columnRange':
      return `columnRange(${f.family} ${showByteBound(f.start, 'start')}, ${showByteBound(f.end, 'end')})`;
    case 'valueRange':
      return `valueRange(${showByteBound(f.start, 'start')}, ${showByteBound(f.end, 'end')})`;
    case 'timestampRange':
      return `time[${showTimestamp(f.start)}, ${f.end === undefined ? '∞' : showTimestamp(f.end)})`;
    case 'cellsPerRowOffset':
      return `rowOffset(${f.offset})`;
    case 'cellsPerRowLimit':
      return `rowLimit(${f.limit})`;
    case 'cellsPerColumnLimit':
      return `columnLimit(${f.limit})`;
    case 'applyLabel':
      return `label(${f.label})`;
    case 'valueBitmask':
      return `bitmask(${bytes(f.mask)})`;
  }
}

function showMod(m: FamilyMod): string {
  return m.kind === 'update' ? `update ${m.family} ${describeGcRule(m.gcRule)}` : `${m.kind} ${m.family}`;
}

/** One line per operation, for counterexamples. */
export function showOp(op: Op): string {
  switch (op.kind) {
    case 'createTable':
      return `createTable ${op.table} [${op.families.join(', ')}] splits [${op.splits.map(q).join(', ')}]`;
    case 'deleteTable':
      return `deleteTable ${op.table}`;
    case 'modifyFamilies':
      return `modifyFamilies ${op.table} ${op.mods.map(showMod).join('; ')}`;
    case 'dropRowRange':
      return `dropRowRange ${op.table} ${op.prefix === undefined ? 'all' : `prefix ${q(op.prefix)}`}`;
    case 'mutateRow':
      return `mutateRow ${op.table} ${showEntries([op])}`;
    case 'mutateRows':
      return `mutateRows ${op.table} ${showEntries(op.entries)}`;
    case 'bulkLoad':
      return (
        `bulkLoad ${op.table} ${bulkKey(op.start)}..${bulkKey(op.start + op.count - 1)} ` +
        (op.delete ? 'delrow' : `set ${op.family}:'b'@${showTimestamp(op.timestamp)} load ${op.load}, ${op.size} bytes`)
      );
    case 'concurrentMutations':
      return `concurrentMutations ${op.table} ${showEntries(op.entries)}`;
    case 'burst':
      return `burst {${op.ops.map(showOp).join('; ')}}`;
    case 'checkAndMutate':
      return (
        `checkAndMutate ${op.table} ${q(op.key)} if ${op.predicate === undefined ? 'any cell' : showFilter(op.predicate)} ` +
        `then [${op.trueMutations.map(showMutation).join(', ')}] else [${op.falseMutations.map(showMutation).join(', ')}]`
      );
    case 'readModifyWrite':
      return `readModifyWrite ${op.table} ${q(op.key)} ${op.rules.map(showRule).join(', ')}`;
    case 'read':
      return (
        `read ${op.table} ${showRowSet(op.rows)}${op.filter === undefined ? '' : ` filter ${showFilter(op.filter)}`}` +
        `${op.limit > 0 ? ` limit ${op.limit}` : ''}${op.reversed ? ' reversed' : ''}`
      );
    case 'scanWhile':
      return (
        `scanWhile ${op.table} ${showRowSet(op.rows)}${op.filter === undefined ? '' : ` filter ${showFilter(op.filter)}`}` +
        `${op.limit > 0 ? ` limit ${op.limit}` : ''}${op.reversed ? ' reversed' : ''}: ${op.first} rows, then {${op.during.map(showOp).join('; ')}}, then the rest`
      );
    case 'tick':
      return `tick ${op.millis}ms`;
    case 'deleteInstance':
    case 'gcSweep':
    case 'flush':
    case 'restart':
      return op.kind;
    case 'compact':
      return op.major ? 'compact major' : 'compact minor';
    case 'crash':
      return op.tornSeed === undefined ? 'crash' : `crash torn(${op.tornSeed})`;
  }
}
