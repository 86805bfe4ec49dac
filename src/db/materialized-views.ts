import type { ByteString } from '../model/bytes.js';
import { idHolder } from './catalog/resource-ids.js';
import { checkEtag as checkResourceEtag, validateChildId } from './catalog/resource-checks.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../model/errors.js';
import { type ChildName, INTERNAL_TABLE_PREFIX, type InstanceName, type TableName, tableNameString } from '../model/names.js';
import type { MaterializedViewInfo, MaterializedViewSpec } from './api.js';
import type { Catalog, InstanceEntry } from './catalog/catalog.js';
import type { MaterializedViewRecord } from './catalog/catalog-state.js';

/**
 * Continuous materialized views in the catalog: records per instance (id, query, source table, deletion
 * protection, etag, and the uid that names the view's internal tables). The db neither parses nor runs the
 * query: a maintainer above it (src/sql/materialized implements MaterializedViewMaintainer; the db never
 * imports sql, and src/index.ts attaches the two) checks the query, builds and keeps the view's data, and hears
 * of every acknowledged write.
 */

/** What the db asks of the engine that keeps materialized views (src/sql/materialized). */
export interface MaterializedViewMaintainer {
  /**
   * Checks a new view's query against the instance as it is now; answers the id of the table it reads.
   * Throws InvalidArgument (or NotFound for an unknown table) for a query that cannot be a materialized view.
   */
  check(instance: InstanceName, query: string): string;
  /** True when some view reads the table (the db then reports its writes; a cheap lookup). */
  watches(table: TableName): boolean;
  /** The view was stored: build its data from the source table; resolves once built. */
  created(view: MaterializedViewInfo): Promise<void>;
  /** The view was removed from the catalog: drop its data. */
  deleted(view: MaterializedViewInfo): Promise<void>;
  /**
   * Rows of a table changed by an acknowledged write (called once the write is applied; the keys may repeat
   * and may include rows the write left as they were); 'all' when any row may have changed (DropRowRange).
   */
  rowsChanged(table: TableName, keys: readonly ByteString[] | 'all'): void;
  /** How maintenance of the view is going (the JSON API and logs); undefined for a view it does not know. */
  status?(view: ChildName): MaterializedViewStatus | undefined;
}

/** What the maintainer tells about one view (in memory: a restart starts the counts again). */
export interface MaterializedViewStatus {
  /** Source rows changed and not yet applied to the view. */
  readonly pendingRows: number;
  /** A build is queued or running (readers still see the previous complete view, if any). */
  readonly rebuilding: boolean;
  /** Builds since start: the first, and rebuilds after a crash, a DropRowRange, a family change or too many pending rows. */
  readonly rebuilds: number;
  /**
   * Evaluations that failed since start, each leaving a row out of the view: a source row on which the view's
   * expressions fail (TO_INT64 of 3 bytes), or a group whose aggregate overflows (it has no row meanwhile).
   */
  readonly evaluationErrors: number;
  /** The last such failure: the source row's key or the group's view row key (printable), and the error. */
  readonly lastEvaluationError?: {
    readonly where: 'source row' | 'group';
    readonly key: string;
    readonly message: string;
    readonly timeMillis: number;
  };
}

export class MaterializedViewAdmin {
  maintainer: MaterializedViewMaintainer | undefined;

  constructor(
    private readonly catalog: Catalog,
    private readonly nowMillis: () => number,
    private readonly findInstance: (name: InstanceName) => InstanceEntry,
  ) {}

  /** Validates and records a new view (the caller persists the catalog, then has the maintainer build it). */
  create(name: ChildName, spec: MaterializedViewSpec): MaterializedViewInfo {
    validateViewId(name.id);
    const maintainer = this.maintainer;
    if (maintainer === undefined)
      throw failedPrecondition('Materialized views need the SQL engine, which this database was opened without');
    const entry = this.findInstance(name);
    const holder = idHolder(entry, name.id);
    if (holder !== undefined) throw alreadyExists(`A ${holder} named ${name.id} already exists in instance ${name.instance}`);
    if (typeof spec.query !== 'string' || spec.query.trim() === '') throw invalidArgument('A materialized view needs a query');
    const sourceTable = maintainer.check(name, spec.query);
    const record: MaterializedViewRecord = {
      id: name.id,
      uid: this.catalog.newId('mv'),
      query: spec.query,
      sourceTable,
      deletionProtection: spec.deletionProtection,
      etag: this.catalog.newId('etag-'),
      createTimeMillis: this.nowMillis(),
    };
    entry.update({ materializedViews: [...this.records(entry), record] });
    return viewInfo(name, record);
  }

  get(name: ChildName): MaterializedViewInfo {
    return viewInfo(name, this.record(name));
  }

  list(instance: InstanceName): MaterializedViewInfo[] {
    return this.records(this.findInstance(instance))
      .map((r) => viewInfo({ ...instance, id: r.id }, r))
      .sort((a, b) => (a.name.id < b.name.id ? -1 : a.name.id > b.name.id ? 1 : 0));
  }

  /** Every view of every instance (the maintainer's start). */
  all(): MaterializedViewInfo[] {
    const out: MaterializedViewInfo[] = [];
    for (const entry of this.catalog.allInstances()) {
      for (const r of this.records(entry)) out.push(viewInfo({ project: entry.record.project, instance: entry.record.id, id: r.id }, r));
    }
    return out;
  }

  update(name: ChildName, update: { readonly deletionProtection?: boolean }, etag: string | undefined): MaterializedViewInfo {
    const current = this.record(name);
    checkEtag(name, current, etag);
    const next: MaterializedViewRecord = {
      ...current,
      deletionProtection: update.deletionProtection ?? current.deletionProtection,
      etag: this.catalog.newId('etag-'),
    };
    this.replace(name, (r) => (r.id === name.id ? [next] : [r]));
    return viewInfo(name, next);
  }

  /** Removes the record (the caller persists the catalog and has the maintainer drop the data). */
  remove(name: ChildName, etag: string | undefined): MaterializedViewInfo {
    const current = this.record(name);
    checkEtag(name, current, etag);
    if (current.deletionProtection) {
      throw failedPrecondition(`Materialized view ${viewNameString(name)} cannot be deleted: deletion protection is enabled`);
    }
    this.replace(name, (r) => (r.id === name.id ? [] : [r]));
    return viewInfo(name, current);
  }

  /**
   * Points the view at another pair of internal tables (a rebuild filled them); NotFound when the view is gone
   * or was created again (another uid). The caller persists the catalog.
   */
  switchGeneration(name: ChildName, uid: string, generation: number): void {
    const current = this.record(name);
    if (current.uid !== uid) throw notFound(`Materialized view ${viewNameString(name)} not found`);
    this.replace(name, (r) => (r.id === name.id ? [{ ...r, generation }] : [r]));
  }

  /** Removes a view whose creation failed (no checks). */
  discard(name: ChildName): void {
    this.replace(name, (r) => (r.id === name.id ? [] : [r]));
  }

  /** The views that read a table (DeleteTable refuses to delete it while there are any). */
  readersOf(table: TableName): string[] {
    const entry = this.catalog.instance(table);
    if (entry === undefined) return [];
    return this.records(entry).flatMap((r) => (r.sourceTable === table.table ? [r.id] : []));
  }

  private records(entry: InstanceEntry): readonly MaterializedViewRecord[] {
    return entry.record.materializedViews ?? [];
  }

  private record(name: ChildName): MaterializedViewRecord {
    const record = this.records(this.findInstance(name)).find((r) => r.id === name.id);
    if (record === undefined) throw notFound(`Materialized view ${viewNameString(name)} not found`);
    return record;
  }

  private replace(name: InstanceName, f: (r: MaterializedViewRecord) => MaterializedViewRecord[]): void {
    const entry = this.findInstance(name);
    entry.update({ materializedViews: this.records(entry).flatMap(f) });
  }
}

function validateViewId(id: string): void {
  validateChildId('materialized view', id, 128);
}

function checkEtag(name: ChildName, record: MaterializedViewRecord, etag: string | undefined): void {
  checkResourceEtag(`materialized view ${viewNameString(name)}`, record.etag, etag);
}

/**
 * The internal tables of a view (INTERNAL_TABLE_PREFIX ids: ListTables leaves them out, clients cannot name
 * them): `data` holds the view's rows as ReadRows serves them, `state` what keeps them up to date. Each
 * generation (a rebuild's new pair) has its own: `$mv.<uid>`, then `$mv.<uid>.1`, `$mv.<uid>.2`, ...
 */
export function viewTables(
  view: Pick<MaterializedViewInfo, 'name' | 'uid' | 'generation'>,
  generation = view.generation,
): { readonly data: TableName; readonly state: TableName } {
  const { project, instance } = view.name;
  const suffix = generation === 0 ? '' : `.${generation}`;
  return {
    data: { project, instance, table: `${INTERNAL_TABLE_PREFIX}mv.${view.uid}${suffix}` },
    state: { project, instance, table: `${INTERNAL_TABLE_PREFIX}mvs.${view.uid}${suffix}` },
  };
}

const INTERNAL_VIEW_TABLE_RE = /^\$(mvs?)\.([^.]+)(?:\.\d+)?$/;

/**
 * How logs and listings name a table: its full name, or for a view's internal table the view's name and which
 * of its tables it is (`projects/p/instances/i/materializedViews/by_region (data)`), since `$mv.<uid>` means
 * nothing to a developer.
 */
export function describeTable(name: TableName, views: readonly Pick<MaterializedViewInfo, 'name' | 'uid'>[]): string {
  const owner = internalTableOwner(name.table, views);
  return owner === undefined ? tableNameString(name) : `${viewNameString({ ...name, id: owner.view })} (${owner.part})`;
}

/** Which view an internal table belongs to, and which of its tables it is (undefined for other tables). */
export function internalTableOwner(
  table: string,
  views: readonly Pick<MaterializedViewInfo, 'name' | 'uid'>[],
): { readonly view: string; readonly part: 'data' | 'state' } | undefined {
  const m = INTERNAL_VIEW_TABLE_RE.exec(table);
  if (m === null) return undefined;
  const view = views.find((v) => v.uid === m[2]);
  return view === undefined ? undefined : { view: view.name.id, part: m[1] === 'mv' ? 'data' : 'state' };
}

export function viewNameString(name: ChildName): string {
  return `projects/${name.project}/instances/${name.instance}/materializedViews/${name.id}`;
}

function viewInfo(name: ChildName, r: MaterializedViewRecord): MaterializedViewInfo {
  return {
    name: { project: name.project, instance: name.instance, id: r.id },
    uid: r.uid,
    query: r.query,
    sourceTable: r.sourceTable,
    deletionProtection: r.deletionProtection,
    etag: r.etag,
    createTimeMillis: r.createTimeMillis,
    generation: r.generation ?? 0,
  };
}
