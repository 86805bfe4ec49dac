import type { DatabaseCore, MaterializedViewInfo, MaterializedViewMaintainer, MaterializedViewStatus } from '../../db/index.js';
import type { ByteString } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import { type Mutation, SERVER_TIME } from '../../model/mutation.js';
import type { ChildName, TableName } from '../../model/names.js';
import type { EvalEnv } from '../bound/evaluate.js';
import type { Accumulator } from '../functions/index.js';
import { SqlTimestamp, type SqlType, type SqlValue } from '../types.js';
import { checkedInt64 } from '../values/cast.js';
import { fromStored, type Stored } from './codec.js';
import type { ViewDefinition } from './definition.js';

/**
 * What the parts of the materialized view engine share: a view as the engine keeps it (LiveView), the shapes of
 * its bookkeeping (contributions, group states), the internal tables' families, and what a step of maintenance
 * is given (MaintenanceContext). maintainer.ts runs the views; build.ts fills a generation from scratch;
 * incremental.ts applies dirty rows; contributions.ts computes a source row's part; view-io.ts reads and writes
 * the tables.
 */

export const DATA_FAMILY = 'default';
export const STATE_FAMILY = 'c';
export const STATE_QUALIFIER = 'v';
export const BATCH = 500;

export type MaterializedViewsDb = Pick<
  DatabaseCore,
  'getTable' | 'readRows' | 'mutateRows' | 'mutateRow' | 'createTable' | 'deleteTable' | 'dropRowRange' | 'getMaterializedView'
> & {
  attachMaterializedViews(maintainer: MaterializedViewMaintainer): void;
  allMaterializedViews(): MaterializedViewInfo[];
  switchMaterializedView(name: ChildName, uid: string, generation: number): Promise<void>;
};

export interface LiveView {
  readonly info: MaterializedViewInfo;
  /** The query analyzed against the source table's schema of the moment (again after a family change). */
  def: ViewDefinition;
  /** The generation whose tables hold the view now (the catalog's), and those tables. */
  generation: number;
  data: TableName;
  state: TableName;
  /** An older generation whose tables go once reads in progress on them are done. */
  retired: { readonly generation: number; readonly timer: ReturnType<typeof setTimeout> | undefined } | undefined;
  slotOf: ReadonlyMap<string, number>;
  groupTypes: readonly SqlType[];
  /** The source schema under which the query stopped fitting (its families changed): nothing is applied. */
  misfit: string | undefined;
  /** Source rows to bring up to date (ByteString keys). */
  readonly pending: Set<ByteString>;
  rebuild: boolean;
  dropped: boolean;
  /** A build failed: the view is not what its query gives (it is not marked clean, so a restart rebuilds it). */
  broken: boolean;
  /** Waiting for the next build to finish (CreateMaterializedView). */
  builtWaiters: { resolve: () => void; reject: (e: unknown) => void }[];
  /** After a failed build: the next attempt's timer, and the wait before the one after (doubling, at most a minute). */
  retry: ReturnType<typeof setTimeout> | undefined;
  retryMillis: number;
  rebuilds: number;
  evaluationErrors: number;
  lastEvaluationError: MaterializedViewStatus['lastEvaluationError'];
  /** Evaluation errors not yet in a warning, and when the last warning went. */
  unwarned: number;
  warnedAt: number;
}

/** What a source row contributes to an aggregating view: its group and its aggregates' arguments. */
export interface Contribution {
  readonly g: ByteString;
  readonly k: readonly Stored[];
  readonly a: readonly (readonly Stored[])[];
}

/** What a batch changes in one group: the arguments of the members that left it and of those that joined. */
export interface GroupDelta {
  readonly k: readonly Stored[];
  readonly removed: Contribution['a'][];
  readonly added: Contribution['a'][];
}

/** A group's bookkeeping: key values, member count, in-place aggregate states (count and value). */
export interface GroupState {
  k: Stored[];
  n: number;
  acc: ({ c: string; v: string } | null)[];
  /** The last result of each aggregate not kept in place (null for those kept in place). */
  r?: Stored[];
}

export const ENV: EvalEnv = { params: new Map(), ctx: { now: new SqlTimestamp(0n) } };

/** Records a row or group left out of the view because its expressions failed (counted and reported). */
export type LeftOut = (v: LiveView, where: 'source row' | 'group', key: ByteString, e: unknown) => undefined;

/** What build.ts and incremental.ts are given by the engine. */
export interface MaintenanceContext {
  readonly db: ViewsIoDb;
  readonly leftOut: LeftOut;
  /** Called after each batch a build writes (MaterializedViewsOptions.onBuildBatch). */
  readonly onBuildBatch?: ((viewId: string) => Promise<void> | void) | undefined;
}

/** The db as the view's reads and writes need it. */
export type ViewsIoDb = Pick<DatabaseCore, 'readRows' | 'mutateRows'>;

/** How a view's source rows are read: family slots and group key types. */
export function shapeOf(def: ViewDefinition): Pick<LiveView, 'slotOf' | 'groupTypes'> {
  const q = def.analyzed;
  return {
    slotOf: new Map(def.families.map((i) => [q.families[i]!.name, i + 1])),
    groupTypes: q.aggregate?.groups.map((g) => g.type) ?? [],
  };
}

export function addMember(accs: readonly (Accumulator | undefined)[], member: Row): void {
  const cell = member.cells[0];
  if (cell === undefined) return;
  const args = JSON.parse(Buffer.from(cell.value).toString('utf8')) as Stored[][];
  accs.forEach((acc, i) => acc?.add(args[i]!.map(fromStored)));
}

export function inPlaceResult(fn: string, s: { c: string; v: string }): SqlValue {
  const c = BigInt(s.c);
  if (fn === '$count_star' || fn === 'COUNT') return c;
  return c === 0n ? null : checkedInt64(BigInt(s.v));
}

export function setCell(family: string, qualifier: ByteString, value: Uint8Array): Mutation {
  return { kind: 'setCell', family, qualifier, timestamp: SERVER_TIME, value };
}

export function stateCell(text: string): Mutation {
  return setCell(STATE_FAMILY, STATE_QUALIFIER, Buffer.from(text, 'utf8'));
}
