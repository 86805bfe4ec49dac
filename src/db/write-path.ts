import type { ByteString } from '../model/bytes.js';
import { printable } from '../model/bytes.js';
import type { Cell, Row } from '../model/cell.js';
import { NO_LABELS } from '../model/cell.js';
import type { ViewMatcher } from '../model/authorized-view.js';
import { type TabletopError, invalidArgument, isTabletopError, notFound } from '../model/errors.js';
import type { CompiledFilter } from '../model/filter/index.js';
import { LIMITS } from '../model/limits.js';
import type { Mutation, ReadModifyWriteRule, RowMutation } from '../model/mutation.js';
import { tableNameString } from '../model/names.js';
import { applyReadModifyWrite } from '../model/read-modify-write.js';
import {
  type MutationListField,
  findMutationProblem,
  validateMutations,
  validateReadModifyWriteRules,
  validateRowKey,
} from '../model/validate-mutation.js';
import { applyStoreOps } from '../storage/row-ops.js';
import type { ColumnRef, StoreOp } from '../storage/store.js';
import { latestCell, needsCurrentRow, storeOpsFor } from './mutation-ops.js';
import { visibleCells } from './row-assembly.js';
import type { Schema } from './schema.js';
import type { TableAccess } from './access.js';
import type { TableRuntime } from './table-runtime.js';
import { seenRowBytes } from './usage.js';
import { WriteBatch } from './write-batch.js';

/**
 * The write path. Every operation validates its whole input first, then
 * enters the table's write gate, takes the row locks, (re)checks the input
 * against the schema of that moment, resolves mutations into store ops and
 * writes them. Everything stays synchronous while the engine answers
 * synchronously; the only awaits are on real promises (lock contention,
 * engine I/O).
 *
 * Atomicity: an operation that reads a row and writes back what it read
 * (AddToCell and MergeToCell, CheckAndMutateRow, ReadModifyWriteRow) either
 * holds the row's lock from before its read until its write is applied, or
 * runs without yielding in between. The second is MutateRows's fast path (it
 * takes no row lock while no row of the table is locked), and the types keep
 * it: the work between a read and its write is done by functions that are
 * synchronous by their types (`EntriesWrite.advance`, the `decide` of
 * `readDecideWrite`), in which TypeScript allows no `await` and whose return
 * types an `async` version could not have; the rows are locked before
 * anything they hand back is awaited. write-interleavings.test.ts checks the
 * outcomes at every interleaving point.
 */

/**
 * Validates each MutateRows entry on its own: returns one slot per entry,
 * holding the entry's error if it is invalid. A problem that production
 * treats as request-wide (an AddToCell input of the wrong kind) is thrown.
 */
export function validateEntries(schema: Schema, entries: readonly RowMutation[]): (TabletopError | undefined)[] {
  const results: (TabletopError | undefined)[] = new Array<TabletopError | undefined>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const { key, mutations } = entries[i]!;
    const problem = findMutationProblem(schema, key, mutations, { entry: i });
    if (problem?.scope === 'request') throw problem.error;
    results[i] = problem?.error;
  }
  return results;
}

/** A MutateRows with more value bytes or entries than these is applied in slices of about this much (entrySlices). */
const SLICE_VALUE_BYTES = 4 * 1024 * 1024;
const SLICE_ENTRIES = 10_000;

/**
 * The slices `[from, to)` in which a MutateRows's entries are applied, in
 * order, yielding to other work between them: each of at most about
 * SLICE_VALUE_BYTES of values and SLICE_ENTRIES entries, so that one 256 MiB
 * request does not hold every other client for the second or two that
 * applying it takes. Each entry is atomic on its own, not the request, so a
 * slice boundary changes nothing a client can see but the interleaving.
 */
export function entrySlices(entries: readonly RowMutation[]): [number, number][] {
  const slices: [number, number][] = [];
  let from = 0;
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    bytes += e.key.length;
    for (const m of e.mutations) if (m.kind === 'setCell') bytes += m.value.byteLength;
    if (bytes >= SLICE_VALUE_BYTES || i + 1 - from >= SLICE_ENTRIES) {
      slices.push([from, i + 1]);
      from = i + 1;
      bytes = 0;
    }
  }
  if (from < entries.length || slices.length === 0) slices.push([from, entries.length]);
  return slices;
}

/**
 * Applies the entries whose slot in `results` is still undefined, each
 * atomically; an entry that fails gets its error in its slot and the others
 * still apply. `validatedWith` is the schema the entries were validated
 * against; if the schema changed meanwhile they are validated again.
 */
export async function applyEntries(
  table: TableRuntime,
  entries: readonly RowMutation[],
  results: (TabletopError | undefined)[],
  validatedWith: Schema,
  nowMicros: number,
): Promise<void> {
  // The request's latency goes to the recorder under the key of its first entry; ok when every entry applied.
  // Timed here, in the one async frame of the call: a wrapping async function cost each request a promise and
  // a microtask more with recording on than off.
  const access = table.access;
  const t0 = access === undefined ? 0 : performance.now();
  let ok = false;
  try {
    if (!allSettled(results)) {
      const entered = enter(table);
      if (entered !== undefined) await entered;
      try {
        const write = new EntriesWrite(table, entries, results, validatedWith, nowMicros);
        try {
          // While no row of the table is locked, the rows are locked only once the batch must wait
          // (a read or size check that goes to disk): a bulk load of plain writes takes no lock, which
          // saved ~0.6 µs of a 100 B row's ~7 µs (two Map operations per row and the key set).
          if (table.locks.lockedRows > 0) {
            const locked = write.lockRows();
            if (locked !== undefined) await locked;
          }
          for (let wait = write.advance(); wait !== undefined; wait = write.advance()) {
            const locked = write.lockRows();
            if (locked !== undefined) await locked;
            await wait;
          }
        } finally {
          // Applied (visible to the next lock holder); durability is awaited without the locks.
          write.unlockRows();
        }
        const durable = write.batch.durable();
        if (durable instanceof Promise) await durable;
      } finally {
        table.gate.exitShared();
      }
    }
    // A plain loop: Array.prototype.every's callback cost ~65 instructions per row of a bulk load (callgrind).
    if (access !== undefined) {
      ok = true;
      for (let i = 0; i < results.length && ok; i++) ok = results[i] === undefined;
    }
  } finally {
    if (access !== undefined) access.requestEnded('write', entries[0]?.key, (performance.now() - t0) * 1000, ok);
  }
}

/** Whether every entry already has its error (nothing left to apply). */
function allSettled(results: readonly (TabletopError | undefined)[]): boolean {
  for (let i = 0; i < results.length; i++) if (results[i] === undefined) return false;
  return true;
}

/** Marks a row not read yet. */
const NOT_READ = Symbol('not read');

/**
 * The entries of one MutateRows (or MutateRow) call, applied in order into
 * one write batch. `advance()` is the critical section between an entry's
 * read of its row (AddToCell folds into the current cell) and its write.
 */
class EntriesWrite {
  readonly batch: WriteBatch;
  private readonly schema: Schema;
  /** The entry being applied. */
  private next = 0;
  /** What waits brought for entry `next`: its row, and whether its size check passed. */
  private row: Row | undefined | typeof NOT_READ = NOT_READ;
  private sizeChecked = false;
  /** The keys locked, once they are. */
  private locked: ByteString[] | undefined;

  constructor(
    private readonly table: TableRuntime,
    private readonly entries: readonly RowMutation[],
    private readonly results: (TabletopError | undefined)[],
    private readonly validatedWith: Schema,
    private readonly nowMicros: number,
  ) {
    this.schema = table.schema;
    this.batch = new WriteBatch(table.tablets, results, table);
  }

  /**
   * Applies entries, from where the last call stopped, until one must wait
   * for the engine (its row read, or a size check that reads the row): then
   * returns that wait, after which the next call goes on with the same
   * entry. Returns undefined once every entry is applied (the batch flushed).
   *
   * Synchronous, as its return type says (an `async` method cannot have
   * it): nothing else runs between an entry's read and its write, unless
   * the caller locked the rows before awaiting the wait in between.
   */
  advance(): Promise<void> | undefined {
    const { entries, results, schema, nowMicros, batch } = this;
    for (; this.next < entries.length; this.moveOn()) {
      const i = this.next;
      if (results[i] !== undefined) continue;
      const { key, mutations } = entries[i]!;
      try {
        if (schema !== this.validatedWith) validateMutations(schema, key, mutations);
        let current: readonly Cell[] | undefined;
        if (needsCurrentRow(mutations)) {
          if (this.row === NOT_READ) {
            const row = batch.read(key);
            if (row instanceof Promise) return this.entryWait(row.then((r) => void (this.row = r)));
            this.row = row;
          }
          current = visibleCells(this.row?.cells ?? [], schema, nowMicros, 'storage');
        }
        const ops = storeOpsFor(schema, mutations, nowMicros, current);
        if (ops.length === 0) continue;
        if (!this.sizeChecked) {
          const sized = batch.checkRowSize(key, ops);
          if (sized instanceof Promise) return this.entryWait(sized.then(() => void (this.sizeChecked = true)));
        }
        batch.add(i, key, ops);
      } catch (e) {
        if (!isTabletopError(e)) throw e;
        results[i] = e;
      }
    }
    batch.flush();
    return undefined;
  }

  /** Locks the rows of the entries applied and still to apply (once; undefined when taken at once). */
  lockRows(): Promise<void> | undefined {
    if (this.locked !== undefined) return undefined;
    const keys = new Set<ByteString>();
    this.entries.forEach((e, i) => {
      if (this.results[i] === undefined) keys.add(e.key);
    });
    this.locked = [...keys];
    return this.table.locks.acquireAll(this.locked);
  }

  unlockRows(): void {
    if (this.locked !== undefined) this.table.locks.releaseAll(this.locked);
  }

  private moveOn(): void {
    this.next++;
    this.row = NOT_READ;
    this.sizeChecked = false;
  }

  /** A wait of the current entry: an error it ends in (a TabletopError) is the entry's, and the next entry follows. */
  private entryWait(wait: Promise<void>): Promise<void> {
    return wait.catch((e: unknown) => {
      if (!isTabletopError(e)) throw e;
      this.results[this.next] = e;
      this.moveOn();
    });
  }
}

/**
 * Problems of a CheckAndMutateRow branch that only matter if the branch is
 * applied (unknown family, family type mismatch), as production checks them.
 */
export interface BranchProblems {
  readonly whenTrue: TabletopError | undefined;
  readonly whenFalse: TabletopError | undefined;
}

/**
 * Validation of CheckAndMutateRow: the key, at least one mutation in some
 * branch, and each branch's mutations. Throws problems that fail the request
 * whatever the predicate says; returns those that fail it only if their branch
 * is the one applied.
 */
export function validateCheckAndMutate(
  schema: Schema,
  key: ByteString,
  trueMutations: readonly Mutation[],
  falseMutations: readonly Mutation[],
): BranchProblems {
  validateRowKey(key);
  if (trueMutations.length === 0 && falseMutations.length === 0) {
    throw invalidArgument('CheckAndMutateRow needs at least one mutation in true_mutations or false_mutations');
  }
  const branch = (mutations: readonly Mutation[], field: MutationListField): TabletopError | undefined => {
    const problem = findMutationProblem(schema, key, mutations, { field, allowEmpty: true });
    if (problem === undefined) return undefined;
    if (problem.scope !== 'batch') throw problem.error;
    return problem.error;
  };
  const whenTrue = branch(trueMutations, 'true mutation list');
  const whenFalse = branch(falseMutations, 'false mutation list');
  return { whenTrue, whenFalse };
}

/**
 * A write through an authorized view, once its key and columns are known to be in the view: what remains to
 * check against the row it reads (a DeleteFromRow or DeleteFromFamily must not remove cells outside the view).
 */
export interface ViewWrite {
  readonly matcher: ViewMatcher;
  /** The error of a write that would reach outside the view (PERMISSION_DENIED). */
  readonly denied: () => TabletopError;
}

/** The outcome of CheckAndMutateRow: whether the predicate matched. Through a view, the predicate sees only the view's cells. */
export function checkAndMutate(
  table: TableRuntime,
  key: ByteString,
  predicate: CompiledFilter | undefined,
  trueMutations: readonly Mutation[],
  falseMutations: readonly Mutation[],
  nowMicros: number,
  view?: ViewWrite,
): Promise<boolean> {
  return readDecideWrite(table, key, undefined, (schema, row) => {
    const problems = validateCheckAndMutate(schema, key, trueMutations, falseMutations);
    const visible = visibleCells(row?.cells ?? [], schema, nowMicros, 'output');
    const seen = view === undefined ? visible : view.matcher.cellsInView(visible);
    const matched = predicate === undefined ? seen.length > 0 : predicate.apply({ key, cells: seen }, schema.compare).length > 0;
    const problem = matched ? problems.whenTrue : problems.whenFalse;
    if (problem !== undefined) throw problem;
    const mutations = matched ? trueMutations : falseMutations;
    if (mutations.length === 0) return { ops: [], answer: matched };
    if (view !== undefined && !view.matcher.deletesStayInView(mutations, visible)) throw view.denied();
    const current = needsCurrentRow(mutations) ? visibleCells(row?.cells ?? [], schema, nowMicros, 'storage') : undefined;
    return { ops: storeOpsFor(schema, mutations, nowMicros, current), answer: matched };
  });
}

/**
 * ReadModifyWriteRow: applies the rules in order to the newest visible
 * version of each column (a later rule on the same column sees the earlier
 * one's result) and writes each result at max(now, that version's
 * timestamp). Returns the new cells, one per modified column, in output order.
 */
export function readModifyWrite(
  table: TableRuntime,
  key: ByteString,
  rules: readonly ReadModifyWriteRule[],
  validatedWith: Schema,
  nowMicros: number,
): Promise<Row> {
  // Only the newest cell of each column the rules touch is read: the rest of the row does not matter here.
  return readDecideWrite(table, key, rules, (schema, row) => {
    if (schema !== validatedWith) validateReadModifyWriteRules(schema, key, rules);
    let working = visibleCells(row?.cells ?? [], schema, nowMicros, 'storage');
    const ops: StoreOp[] = [];
    const modified = new Map<string, Cell>();
    for (let r = 0; r < rules.length; r++) {
      const rule = rules[r]!;
      const latest = latestCell(working, rule.family, rule.qualifier);
      const value = applyReadModifyWrite(rule, latest?.value);
      if (value.byteLength > LIMITS.maxValueBytes) {
        throw invalidArgument(
          `ReadModifyWriteRow would make the value of ${rule.family}:${printable(rule.qualifier.slice(0, 64))} ${value.byteLength} bytes; the limit is ${LIMITS.maxValueBytes}`,
        );
      }
      const timestamp = latest !== undefined && latest.timestamp > nowMicros ? latest.timestamp : nowMicros;
      const op: StoreOp = { kind: 'put', family: rule.family, qualifier: rule.qualifier, timestamp, value };
      ops.push(op);
      // Later rules see this one's result (a copy of the row: skipped after the last rule).
      if (r + 1 < rules.length) working = applyStoreOps(working, [op]);
      modified.set(`${rule.family}:${rule.qualifier}`, {
        family: rule.family,
        qualifier: rule.qualifier,
        timestamp,
        value,
        labels: NO_LABELS,
      });
    }
    return { ops, answer: { key, cells: [...modified.values()].sort(schema.compare) } };
  });
}

/**
 * One row's mutations through an authorized view whose deletes may reach outside it: reads the row under its
 * lock, fails with the view's error when a DeleteFromRow or DeleteFromFamily would remove a cell outside the
 * view, and writes otherwise (validated against `validatedWith`, again if the schema changed).
 */
export function mutateRowInView(
  table: TableRuntime,
  key: ByteString,
  mutations: readonly Mutation[],
  validatedWith: Schema,
  nowMicros: number,
  view: ViewWrite,
): Promise<void> {
  return readDecideWrite(table, key, undefined, (schema, row) => {
    if (schema !== validatedWith) validateMutations(schema, key, mutations);
    const current = visibleCells(row?.cells ?? [], schema, nowMicros, 'storage');
    if (!view.matcher.deletesStayInView(mutations, current)) throw view.denied();
    return { ops: storeOpsFor(schema, mutations, nowMicros, needsCurrentRow(mutations) ? current : undefined), answer: undefined };
  });
}

/** What a single-row read-modify-write makes of the row it read: the ops to write, and the call's answer. */
interface RowDecision<T> {
  readonly ops: readonly StoreOp[];
  readonly answer: T;
}

/**
 * Reads a row and writes back what `decide` makes of it, holding the row's
 * lock inside the write gate from before the read until the write is
 * applied; answers once the write is durable, or throws the row's write
 * error. `columns` narrows the read to the newest cell of each (see
 * RowStore.getForUpdate). `decide` gets the schema of the moment and the row
 * as read, is synchronous by its type, and may throw to fail the call.
 */
async function readDecideWrite<T>(
  table: TableRuntime,
  key: ByteString,
  columns: readonly ColumnRef[] | undefined,
  decide: (schema: Schema, row: Row | undefined) => RowDecision<T>,
): Promise<T> {
  // The request's latency goes to the recorder; the row it read counts as one row read. Timed in the call's one
  // async frame (a wrapping async function cost each call a promise and a microtask more with recording on).
  const access = table.access;
  const started = access === undefined ? 0 : performance.now();
  let ok = false;
  try {
    const entered = enter(table);
    if (entered !== undefined) await entered;
    try {
      const locked = table.locks.acquire(key);
      if (locked !== undefined) await locked;
      const results: (TabletopError | undefined)[] = [undefined];
      const batch = new WriteBatch(table.tablets, results, table);
      let decision: RowDecision<T>;
      try {
        const schema = table.schema;
        const t0 = access === undefined ? 0 : performance.now();
        let row = batch.read(key, columns);
        if (row instanceof Promise) row = await row;
        if (access !== undefined) recordRowRead(access, key, row, t0);
        decision = decide(schema, row);
        if (decision.ops.length > 0) {
          const sized = batch.checkRowSize(key, decision.ops);
          if (sized instanceof Promise) await sized;
          batch.add(0, key, decision.ops);
          batch.flush();
          const error = results[0];
          if (error !== undefined) throw error;
        }
      } finally {
        // Applied (visible to the next lock holder); durability is awaited without the lock.
        table.locks.release(key);
      }
      // Nothing written: the answer still rests on the row as read, which may hold writes not yet durable (applied by
      // another request that has not been acknowledged): a crash could lose them after this answer revealed them.
      // Found by the linearizability check (a CheckAndMutateRow answered false on a write the next crash took back).
      const durable = decision.ops.length > 0 ? batch.durable() : batch.seenDurable(key);
      if (durable instanceof Promise) await durable;
      const error = results[0];
      if (error !== undefined) throw error;
      ok = true;
      return decision.answer;
    } finally {
      table.gate.exitShared();
    }
  } finally {
    if (access !== undefined) access.requestEnded('write', key, (performance.now() - started) * 1000, ok);
  }
}

/**
 * The one-row batch of a read-modify-write's read, reused by every call: a RowBatch's arrays are valid during
 * the recorder's call only, which is synchronous (four arrays and an object per call, before).
 */
const oneRowRead = { keys: [''], bytes: [0], cellsReturned: [0], count: 1, cpuMicros: 0 };

function recordRowRead(access: TableAccess, key: ByteString, row: Row | undefined, t0: number): void {
  oneRowRead.keys[0] = key;
  oneRowRead.bytes[0] = row === undefined ? 0 : seenRowBytes(key, row.cells);
  oneRowRead.cellsReturned[0] = row?.cells.length ?? 0;
  oneRowRead.cpuMicros = (performance.now() - t0) * 1000;
  access.rowsRead(oneRowRead);
}

/** Enters the table's write gate (now, or once the promise resolves); fails with NotFound once the table is being deleted. */
function enter(table: TableRuntime): Promise<void> | undefined {
  const entered = table.gate.enterShared();
  if (entered === undefined) return checkLive(table);
  return entered.then(() => checkLive(table));
}

function checkLive(table: TableRuntime): undefined {
  if (!table.deleted) return undefined;
  table.gate.exitShared();
  throw notFound(`Table ${tableNameString(table.name)} not found`);
}
