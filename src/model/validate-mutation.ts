import { type ByteString, printable } from './bytes.js';
import { type TabletopError, invalidArgument, isTabletopError, notFound } from './errors.js';
import type { ColumnFamily } from './family.js';
import { LIMITS } from './limits.js';
import { type Mutation, type ReadModifyWriteRule, SERVER_TIME } from './mutation.js';
import { isInt64, validateAggregateInput, validateMergeInput } from './aggregate/index.js';

/**
 * Validation of a request's mutations against the table schema, before any
 * data is touched. Messages follow Cloud Bigtable's where they are known
 * (recorded from the service; see the report of this module's author):
 *
 *   "No mutations provided"                                        INVALID_ARGUMENT
 *   "Row keys must be non-empty"                                   INVALID_ARGUMENT
 *   "Too many mutations: N provided; limit 100000"                 INVALID_ARGUMENT
 *   "Error in field 'Mutation list' : Error in element #0 : Timestamp granularity
 *    mismatch. Expected a multiple of 1000 (millisecond granularity), but got 1234."
 *   "Error in field 'Mutation list' : Error in element #0 : Error in field 'input' :
 *    must use `int_value`"                                         INVALID_ARGUMENT
 *   "Error while mutating the row 'r' (projects/p/instances/i/tables/t) :
 *    Requested column family not found."                           NOT_FOUND
 *   "Error while mutating the row 'r' (projects/.../tables/t) :
 *    Column family type mismatch"                                  INVALID_ARGUMENT
 * tabletop appends a detail after "Column family type mismatch: ...".
 * Messages for sizes, negative timestamps and time ranges are tabletop's own.
 *
 * Production does not fail every problem the same way, which matters to
 * MutateRows and CheckAndMutateRow; each problem therefore carries a scope:
 *  - 'request': checked over the whole request before any row is mutated; in
 *    MutateRows it fails the RPC (message prefixed with the entry's path); in
 *    CheckAndMutateRow it fails even when the branch would not be applied.
 *    (AddToCell with the wrong input kind.)
 *  - 'entry':   fails this row only; in MutateRows, this entry's status.
 *    (Row key, count, sizes, timestamps, time ranges.)
 *  - 'batch':   a schema problem found while mutating the row; production
 *    fails *every* entry of a MutateRows batch with its own row's message
 *    (unknown family, family type mismatch); in CheckAndMutateRow only the
 *    applied branch is checked.
 */

/** The part of a table's schema validation needs. */
export interface SchemaView {
  family(name: string): ColumnFamily | undefined;
  /** Full table name, quoted in row-level messages as production does ("projects/p/instances/i/tables/t"). */
  readonly tableName?: string;
}

export type MutationProblemScope = 'request' | 'entry' | 'batch';

export interface MutationProblem {
  readonly scope: MutationProblemScope;
  readonly error: TabletopError;
}

/** The request field holding a mutation list, as production names it. */
export type MutationListField = 'Mutation list' | 'true mutation list' | 'false mutation list';

export interface MutationListContext {
  /** Default 'Mutation list' (MutateRow, MutateRows entries). */
  readonly field?: MutationListField;
  /** Index of the MutateRows entry holding the list. */
  readonly entry?: number;
  /** CheckAndMutateRow: a branch may be empty when the other is not (the caller checks that). */
  readonly allowEmpty?: boolean;
}

/** Message for a request carrying more than 100,000 mutations (also for MutateRows totals). */
export function tooManyMutationsMessage(count: number): string {
  return `Too many mutations: ${count} provided; limit ${LIMITS.maxMutationsPerRequest}`;
}

/** Row keys: non-empty, at most 4 KiB. Throws InvalidArgument. */
export function validateRowKey(key: ByteString): void {
  const problem = rowKeyProblem(key);
  if (problem !== undefined) throw problem;
}

function rowKeyProblem(key: ByteString): TabletopError | undefined {
  if (key.length === 0) return invalidArgument('Row keys must be non-empty');
  if (key.length > LIMITS.maxRowKeyBytes) {
    return invalidArgument(`Row key is too large: ${key.length} bytes; limit ${LIMITS.maxRowKeyBytes}`);
  }
  return undefined;
}

function elementPath(context: MutationListContext, index: number, withEntry: boolean): string {
  const field = context.field ?? 'Mutation list';
  const inner = `Error in field '${field}' : Error in element #${index}`;
  return withEntry && context.entry !== undefined ? `Error in field 'Entry list' : Error in element #${context.entry} : ${inner}` : inner;
}

function rowMessage(schema: SchemaView, key: ByteString, what: string): string {
  const table = schema.tableName === undefined ? '' : ` (${schema.tableName})`;
  return `Error while mutating the row '${printable(key)}'${table} : ${what}`;
}

function familyNotFound(schema: SchemaView, key: ByteString, family: string): TabletopError {
  return notFound(`${rowMessage(schema, key, 'Requested column family not found.')} (family "${family}")`);
}

function typeMismatch(schema: SchemaView, key: ByteString, detail: string): TabletopError {
  return invalidArgument(rowMessage(schema, key, `Column family type mismatch: ${detail}`));
}

function describeFamily(f: ColumnFamily): string {
  if (f.valueType.kind === 'bytes') return `family '${f.name}' holds plain values`;
  const t = f.valueType;
  const what = t.aggregator === 'hll' ? `HLL++ (${t.input} input)` : `${t.aggregator} over int64`;
  return `family '${f.name}' holds ${what} aggregates`;
}

/** Problem with a timestamp, or undefined. `serverTimeAllowed` only for SetCell. */
function timestampProblem(ts: number, serverTimeAllowed: boolean): string | undefined {
  if (serverTimeAllowed && ts === SERVER_TIME) return undefined;
  if (!Number.isInteger(ts) || ts < 0) {
    return `Invalid timestamp ${ts}: timestamps are non-negative microseconds` + (serverTimeAllowed ? ', or -1 for the server time' : '');
  }
  if (!Number.isSafeInteger(ts) || ts > LIMITS.maxTimestampMicros) {
    return `Invalid timestamp ${ts}: tabletop stores timestamps up to ${LIMITS.maxTimestampMicros} microseconds`;
  }
  if (ts % 1000 !== 0) {
    return `Timestamp granularity mismatch. Expected a multiple of 1000 (millisecond granularity), but got ${ts}.`;
  }
  return undefined;
}

function qualifierProblem(q: ByteString): string | undefined {
  return q.length > LIMITS.maxQualifierBytes
    ? `Column qualifier is too large: ${q.length} bytes; limit ${LIMITS.maxQualifierBytes}`
    : undefined;
}

function valueProblem(v: Uint8Array): string | undefined {
  return v.byteLength > LIMITS.maxValueBytes ? `Cell value is too large: ${v.byteLength} bytes; limit ${LIMITS.maxValueBytes}` : undefined;
}

/** Field problems of one mutation (entry scope), or undefined. */
function fieldProblem(m: Mutation): string | undefined {
  switch (m.kind) {
    case 'setCell':
      return qualifierProblem(m.qualifier) ?? valueProblem(m.value) ?? timestampProblem(m.timestamp, true);
    case 'deleteFromColumn': {
      const p = qualifierProblem(m.qualifier) ?? timestampProblem(m.start, false);
      if (p !== undefined || m.end === undefined) return p;
      const q = timestampProblem(m.end, false);
      if (q !== undefined) return q;
      return m.start > m.end ? `Invalid time range: start_timestamp_micros ${m.start} is after end_timestamp_micros ${m.end}` : undefined;
    }
    case 'addToCell':
      return qualifierProblem(m.qualifier) ?? timestampProblem(m.timestamp, false);
    case 'mergeToCell':
      return qualifierProblem(m.qualifier) ?? valueProblem(m.input) ?? timestampProblem(m.timestamp, false);
    case 'deleteFromFamily':
    case 'deleteFromRow':
      return undefined;
  }
}

/** Schema problem of one mutation (batch scope), or undefined. */
function schemaProblem(schema: SchemaView, key: ByteString, m: Mutation): TabletopError | undefined {
  if (m.kind === 'deleteFromRow') return undefined;
  const family = schema.family(m.family);
  if (family === undefined) return familyNotFound(schema, key, m.family);
  const aggregate = family.valueType.kind === 'aggregate';
  switch (m.kind) {
    case 'setCell':
      return aggregate ? typeMismatch(schema, key, `${describeFamily(family)}; write it with AddToCell or MergeToCell`) : undefined;
    case 'addToCell':
      return aggregate ? undefined : typeMismatch(schema, key, `${describeFamily(family)}; AddToCell needs an aggregate family`);
    case 'mergeToCell':
      if (!aggregate) return typeMismatch(schema, key, `${describeFamily(family)}; MergeToCell needs an aggregate family`);
      try {
        validateMergeInput(family.valueType, m.input);
      } catch (e) {
        if (isTabletopError(e, 'InvalidArgument')) return invalidArgument(rowMessage(schema, key, e.message));
        throw e;
      }
      return undefined;
    case 'deleteFromColumn':
    case 'deleteFromFamily':
      return undefined;
  }
}

/** Request-scope problem of one mutation: an AddToCell input the family cannot take. */
function requestProblem(schema: SchemaView, m: Mutation): string | undefined {
  if (m.kind !== 'addToCell') return undefined;
  const family = schema.family(m.family);
  if (family === undefined || family.valueType.kind !== 'aggregate') return undefined; // a batch-scope problem
  try {
    validateAggregateInput(family.valueType, m.input);
  } catch (e) {
    if (isTabletopError(e, 'InvalidArgument')) return e.message;
    throw e;
  }
  return undefined;
}

/**
 * The first problem of a row's mutations, by scope (request before entry
 * before batch) and then by position, or undefined when the mutations may be
 * applied.
 */
export function findMutationProblem(
  schema: SchemaView,
  key: ByteString,
  mutations: readonly Mutation[],
  context: MutationListContext = {},
): MutationProblem | undefined {
  for (let i = 0; i < mutations.length; i++) {
    const p = requestProblem(schema, mutations[i]!);
    if (p !== undefined) return { scope: 'request', error: invalidArgument(`${elementPath(context, i, true)} : ${p}`) };
  }
  const keyProblem = rowKeyProblem(key);
  if (keyProblem !== undefined) return { scope: 'entry', error: keyProblem };
  if (mutations.length === 0 && context.allowEmpty !== true) return { scope: 'entry', error: invalidArgument('No mutations provided') };
  if (mutations.length > LIMITS.maxMutationsPerRequest) {
    return { scope: 'entry', error: invalidArgument(tooManyMutationsMessage(mutations.length)) };
  }
  for (let i = 0; i < mutations.length; i++) {
    const p = fieldProblem(mutations[i]!);
    if (p !== undefined) return { scope: 'entry', error: invalidArgument(`${elementPath(context, i, false)} : ${p}`) };
  }
  for (const m of mutations) {
    const p = schemaProblem(schema, key, m);
    if (p !== undefined) return { scope: 'batch', error: p };
  }
  return undefined;
}

/** Throws the first problem of a row's mutations (see findMutationProblem). */
export function validateMutations(
  schema: SchemaView,
  key: ByteString,
  mutations: readonly Mutation[],
  context: MutationListContext = {},
): void {
  const problem = findMutationProblem(schema, key, mutations, context);
  if (problem !== undefined) throw problem.error;
}

function ruleFieldProblem(rule: ReadModifyWriteRule): string | undefined {
  const q = qualifierProblem(rule.qualifier);
  if (q !== undefined) return q;
  if (rule.kind === 'append') return valueProblem(rule.value);
  return isInt64(rule.amount) ? undefined : `Increment amount ${rule.amount} does not fit in int64`;
}

/**
 * Checks ReadModifyWriteRow rules: row key, 1..100,000 rules, qualifier and
 * value sizes, known plain (non-aggregate) families. Whether an increment
 * finds an 8-byte value is only known when the row is read
 * (applyReadModifyWrite).
 */
export function validateReadModifyWriteRules(schema: SchemaView, key: ByteString, rules: readonly ReadModifyWriteRule[]): void {
  validateRowKey(key);
  if (rules.length === 0) throw invalidArgument('No rules provided');
  if (rules.length > LIMITS.maxMutationsPerRequest) {
    throw invalidArgument(`Too many rules: ${rules.length} provided; limit ${LIMITS.maxMutationsPerRequest}`);
  }
  for (let i = 0; i < rules.length; i++) {
    const p = ruleFieldProblem(rules[i]!);
    if (p !== undefined) throw invalidArgument(`Error in field 'rules' : Error in element #${i} : ${p}`);
  }
  for (const rule of rules) {
    const family = schema.family(rule.family);
    if (family === undefined) throw familyNotFound(schema, key, rule.family);
    if (family.valueType.kind === 'aggregate') {
      throw typeMismatch(schema, key, `${describeFamily(family)}; ReadModifyWriteRow works on plain families only`);
    }
  }
}
