import { type ByteString, fromBytes } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import { invalidArgument, unimplemented } from '../../model/errors.js';
import type { RowFilter } from '../../model/filter/index.js';
import type { RowRange, RowSet } from '../../model/key-range.js';
import type { Mutation, ReadModifyWriteRule } from '../../model/mutation.js';
import { type ChildName, type InstanceName, type TableName, parseChildName, parseInstanceName, parseTableName } from '../../model/names.js';
import { parseAuthorizedViewName } from './authorized-view.js';
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

/** What a data request targets: a table, and the id of the authorized view of it read or written through, if any. */
export interface DataTarget {
  readonly table: TableName;
  readonly view: string | undefined;
}

/**
 * The table (and authorized view) a data request targets. Exactly one of table_name, authorized_view_name and
 * materialized_view_name names it (INVALID_ARGUMENT otherwise); a materialized view is its internal data table
 * (reads only: `viewTable` is given for ReadRows and SampleRowKeys).
 */
export function dataTargetOf(
  rpc: string,
  req: { tableName?: string | null; authorizedViewName?: string | null; materializedViewName?: string | null },
  /** The internal table holding a materialized view's rows (reads only: ReadRows and SampleRowKeys). */
  viewTable?: (name: ChildName) => TableName,
): DataTarget {
  const named = (req.tableName ? 1 : 0) + (req.authorizedViewName ? 1 : 0) + (req.materializedViewName ? 1 : 0);
  if (named > 1) {
    throw invalidArgument(`${rpc}: set only one of table_name, authorized_view_name and materialized_view_name`);
  }
  if (req.authorizedViewName) {
    const n = parseAuthorizedViewName(req.authorizedViewName);
    return { table: n.table, view: n.id };
  }
  if (req.materializedViewName && viewTable !== undefined)
    return { table: viewTable(parseChildName(req.materializedViewName, 'materializedViews')), view: undefined };
  if (req.materializedViewName)
    throw unimplemented(`${rpc} on a materialized view (${req.materializedViewName}) is not implemented by tabletop yet`);
  if (!req.tableName) throw invalidArgument(`${rpc}: table_name is required`);
  return { table: parseTableName(req.tableName), view: undefined };
}

export interface ReadRowsCommand extends DataTarget {
  readonly rows: RowSet;
  readonly filter: RowFilter | undefined;
  readonly limit: number | undefined;
  readonly reversed: boolean;
  readonly fullStats: boolean;
}

export function readRowsRequestFromProto(
  req: PReadRowsRequest,
  viewTable?: (name: ChildName) => TableName,
  rowSet?: RowSet,
): ReadRowsCommand {
  const target = dataTargetOf('ReadRows', req, viewTable);
  const limit = int64ToNumber(req.rowsLimit, 'rows_limit');
  if (limit < 0) throw invalidArgument(`rows_limit must not be negative (got ${limit})`);
  const view = req.requestStatsView;
  const fullStats = view === 'REQUEST_STATS_FULL' || view === 2;
  return {
    ...target,
    rows: rowSet ?? rowSetFromProto(req.rows),
    filter: req.filter == null ? undefined : rowFilterFromProto(req.filter),
    limit: limit === 0 ? undefined : limit,
    reversed: req.reversed === true,
    fullStats,
  };
}

export interface SampleRowKeysCommand extends DataTarget {
  readonly range: RowRange | undefined;
}

export function sampleRowKeysRequestFromProto(
  req: PSampleRowKeysRequest,
  viewTable?: (name: ChildName) => TableName,
): SampleRowKeysCommand {
  return { ...dataTargetOf('SampleRowKeys', req, viewTable), range: req.rowRange == null ? undefined : rowRangeFromProto(req.rowRange) };
}

export function sampleToProto(s: { readonly key: ByteString; readonly offsetBytes: number }): PSampleRowKeysResponse {
  return { rowKey: Buffer.from(s.key, 'latin1'), offsetBytes: String(s.offsetBytes) };
}

export interface CheckAndMutateCommand extends DataTarget {
  readonly key: ByteString;
  readonly predicate: RowFilter | undefined;
  readonly trueMutations: Mutation[];
  readonly falseMutations: Mutation[];
  /** Mutations as sent in each list (aggregate mutations with NULL input are dropped from the lists). */
  readonly sentTrue: number;
  readonly sentFalse: number;
}

export function checkAndMutateRequestFromProto(req: PCheckAndMutateRowRequest): CheckAndMutateCommand {
  const target = dataTargetOf('CheckAndMutateRow', req);
  const sentTrue = req.trueMutations?.length ?? 0;
  const sentFalse = req.falseMutations?.length ?? 0;
  if (sentTrue + sentFalse === 0)
    throw invalidArgument('CheckAndMutateRow needs at least one mutation in true_mutations or false_mutations');
  return {
    ...target,
    key: fromBytes(req.rowKey ?? Buffer.alloc(0)),
    predicate: req.predicateFilter == null ? undefined : rowFilterFromProto(req.predicateFilter),
    trueMutations: mutationsFromProto(req.trueMutations),
    falseMutations: mutationsFromProto(req.falseMutations),
    sentTrue,
    sentFalse,
  };
}

export interface ReadModifyWriteCommand extends DataTarget {
  readonly key: ByteString;
  readonly rules: ReadModifyWriteRule[];
}

export function readModifyWriteRequestFromProto(req: PReadModifyWriteRowRequest): ReadModifyWriteCommand {
  const target = dataTargetOf('ReadModifyWriteRow', req);
  const rules = (req.rules ?? []).map(readModifyWriteRuleFromProto);
  if (rules.length === 0) throw invalidArgument('ReadModifyWriteRow needs at least one rule');
  return { ...target, key: fromBytes(req.rowKey ?? Buffer.alloc(0)), rules };
}

export function pingRequestFromProto(req: PPingAndWarmRequest): InstanceName {
  if (!req.name) throw invalidArgument('PingAndWarm: name is required (projects/{project}/instances/{instance})');
  return parseInstanceName(req.name);
}
