import { type ByteString, fromBytes } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import { invalidArgument, unimplemented } from '../../model/errors.js';
import type { RowFilter } from '../../model/filter/index.js';
import type { RowRange, RowSet } from '../../model/key-range.js';
import type { Mutation, ReadModifyWriteRule } from '../../model/mutation.js';
import { type ChildName, type InstanceName, type TableName, parseChildName, parseInstanceName, parseTableName } from '../../model/names.js';
import { int64ToNumber } from './int64.js';
import { mutationsFromProto, readModifyWriteRuleFromProto } from './mutation.js';
import type {
  PCheckAndMutateRowRequest,
  PPingAndWarmRequest,
  PReadModifyWriteRowRequest,
  PReadRowsRequest,
  PRow,
  PSampleRowKeysRequest,
  PSampleRowKeysResponse,
  PFamily,
  PColumn,
} from './proto-types.js';
import { rowFilterFromProto } from './row-filter.js';
import { rowRangeFromProto, rowSetFromProto } from './row-set.js';

/**
 * Data API requests → model requests, and model results → responses (except
 * the hot ReadRows / MutateRows paths, which have their own codecs).
 */

/** The table a data request targets. Authorized and materialized views are not implemented yet. */
export function targetTable(
  rpc: string,
  req: { tableName?: string | null; authorizedViewName?: string | null; materializedViewName?: string | null },
  /** The internal table holding a materialized view's rows (reads only: ReadRows and SampleRowKeys). */
  viewTable?: (name: ChildName) => TableName,
): TableName {
  if (req.authorizedViewName)
    throw unimplemented(`${rpc} on an authorized view (${req.authorizedViewName}) is not implemented by tabletop yet`);
  if (req.materializedViewName && viewTable !== undefined) return viewTable(parseChildName(req.materializedViewName, 'materializedViews'));
  if (req.materializedViewName)
    throw unimplemented(`${rpc} on a materialized view (${req.materializedViewName}) is not implemented by tabletop yet`);
  if (!req.tableName) throw invalidArgument(`${rpc}: table_name is required`);
  return parseTableName(req.tableName);
}

export interface ReadRowsCommand {
  readonly table: TableName;
  readonly rows: RowSet;
  readonly filter: RowFilter | undefined;
  readonly limit: number | undefined;
  readonly reversed: boolean;
  readonly fullStats: boolean;
}

export function readRowsRequestFromProto(req: PReadRowsRequest, viewTable?: (name: ChildName) => TableName): ReadRowsCommand {
  const table = targetTable('ReadRows', req, viewTable);
  const limit = int64ToNumber(req.rowsLimit, 'rows_limit');
  if (limit < 0) throw invalidArgument(`rows_limit must not be negative (got ${limit})`);
  const view = req.requestStatsView;
  const fullStats = view === 'REQUEST_STATS_FULL' || view === 2;
  return {
    table,
    rows: rowSetFromProto(req.rows),
    filter: req.filter == null ? undefined : rowFilterFromProto(req.filter),
    limit: limit === 0 ? undefined : limit,
    reversed: req.reversed === true,
    fullStats,
  };
}

export interface SampleRowKeysCommand {
  readonly table: TableName;
  readonly range: RowRange | undefined;
}

export function sampleRowKeysRequestFromProto(
  req: PSampleRowKeysRequest,
  viewTable?: (name: ChildName) => TableName,
): SampleRowKeysCommand {
  return { table: targetTable('SampleRowKeys', req, viewTable), range: req.rowRange == null ? undefined : rowRangeFromProto(req.rowRange) };
}

export function sampleToProto(s: { readonly key: ByteString; readonly offsetBytes: number }): PSampleRowKeysResponse {
  return { rowKey: Buffer.from(s.key, 'latin1'), offsetBytes: String(s.offsetBytes) };
}

export interface CheckAndMutateCommand {
  readonly table: TableName;
  readonly key: ByteString;
  readonly predicate: RowFilter | undefined;
  readonly trueMutations: Mutation[];
  readonly falseMutations: Mutation[];
  /** Mutations as sent in each list (aggregate mutations with NULL input are dropped from the lists). */
  readonly sentTrue: number;
  readonly sentFalse: number;
}

export function checkAndMutateRequestFromProto(req: PCheckAndMutateRowRequest): CheckAndMutateCommand {
  const table = targetTable('CheckAndMutateRow', req);
  const sentTrue = req.trueMutations?.length ?? 0;
  const sentFalse = req.falseMutations?.length ?? 0;
  if (sentTrue + sentFalse === 0)
    throw invalidArgument('CheckAndMutateRow needs at least one mutation in true_mutations or false_mutations');
  return {
    table,
    key: fromBytes(req.rowKey ?? Buffer.alloc(0)),
    predicate: req.predicateFilter == null ? undefined : rowFilterFromProto(req.predicateFilter),
    trueMutations: mutationsFromProto(req.trueMutations),
    falseMutations: mutationsFromProto(req.falseMutations),
    sentTrue,
    sentFalse,
  };
}

export interface ReadModifyWriteCommand {
  readonly table: TableName;
  readonly key: ByteString;
  readonly rules: ReadModifyWriteRule[];
}

export function readModifyWriteRequestFromProto(req: PReadModifyWriteRowRequest): ReadModifyWriteCommand {
  const table = targetTable('ReadModifyWriteRow', req);
  const rules = (req.rules ?? []).map(readModifyWriteRuleFromProto);
  if (rules.length === 0) throw invalidArgument('ReadModifyWriteRow needs at least one rule');
  return { table, key: fromBytes(req.rowKey ?? Buffer.alloc(0)), rules };
}

export function pingRequestFromProto(req: PPingAndWarmRequest): InstanceName {
  if (!req.name) throw invalidArgument('PingAndWarm: name is required (projects/{project}/instances/{instance})');
  return parseInstanceName(req.name);
}
