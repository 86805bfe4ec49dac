import {
  type SubsetView,
  type ViewMatcher,
  compileSubsetView,
  normalizeSubsetView,
  validateSubsetView,
} from '../../model/authorized-view.js';
import { alreadyExists, failedPrecondition, notFound } from '../../model/errors.js';
import { checkEtag as checkResourceEtag, validateChildId } from './resource-checks.js';
import { LIMITS } from '../../model/limits.js';
import { type TableName, tableNameString } from '../../model/names.js';
import type { AuthorizedViewInfo, AuthorizedViewSpec } from '../api.js';
import type { Catalog } from './catalog.js';
import type { AuthorizedViewRecord, TableRecord } from './catalog-state.js';

/** Authorized view ids: the table ids' alphabet, 1 to 50 characters (as Terraform's bigtable_authorized_view documents them). */
const MAX_VIEW_ID_LENGTH = LIMITS.maxTableIdLength;

/**
 * Authorized views, kept on their table's catalog record (TableRecord.authorizedViews) and persisted with it:
 * named subsets of the table's rows and columns (model/authorized-view.ts) that data calls may name instead of
 * the table. Every change gives a fresh etag; an etag given to update or delete must match (ABORTED otherwise);
 * a protected view cannot be deleted, nor can its table or instance (the callers ask `protectedViews`).
 *
 * A view names only families the table has when it is created (FAILED_PRECONDITION otherwise); an update that
 * names one it lacks is refused the same way unless `ignoreWarnings` (it then covers that family once it
 * exists). Deleting the table deletes its views (they live on its record).
 */
export class AuthorizedViews {
  /** Compiled views, by record (records are immutable: a change makes a new one). */
  private readonly compiled = new WeakMap<AuthorizedViewRecord, ViewMatcher>();

  constructor(
    private readonly catalog: Catalog,
    private readonly nowMillis: () => number,
  ) {}

  create(table: TableName, viewId: string, spec: AuthorizedViewSpec): AuthorizedViewInfo {
    validateChildId('authorized view', viewId, MAX_VIEW_ID_LENGTH);
    const subset = checkedSubset(spec.subset);
    const record = this.table(table);
    if (viewsOf(record).some((v) => v.id === viewId)) throw alreadyExists(`Authorized view ${viewName(table, viewId)} already exists`);
    checkFamilies(record, subset, table, undefined);
    const view: AuthorizedViewRecord = {
      id: viewId,
      subset,
      deletionProtection: spec.deletionProtection,
      etag: this.catalog.newId('etag-'),
      createTimeMillis: this.nowMillis(),
    };
    this.setViews(table, record, [...viewsOf(record), view].sort(byId));
    return viewInfo(table, view);
  }

  get(table: TableName, viewId: string): AuthorizedViewInfo {
    return viewInfo(table, this.view(table, viewId));
  }

  /** In id order. */
  list(table: TableName): AuthorizedViewInfo[] {
    return viewsOf(this.table(table)).map((v) => viewInfo(table, v));
  }

  update(
    table: TableName,
    viewId: string,
    update: Partial<AuthorizedViewSpec>,
    options: { readonly etag?: string | undefined; readonly ignoreWarnings?: boolean | undefined },
  ): AuthorizedViewInfo {
    const record = this.table(table);
    const current = this.view(table, viewId);
    checkEtag(current, options.etag, table);
    const subset = update.subset === undefined ? current.subset : checkedSubset(update.subset);
    if (update.subset !== undefined && options.ignoreWarnings !== true) checkFamilies(record, subset, table, 'update');
    const next: AuthorizedViewRecord = {
      ...current,
      subset,
      deletionProtection: update.deletionProtection ?? current.deletionProtection,
      etag: this.catalog.newId('etag-'),
    };
    this.setViews(
      table,
      record,
      viewsOf(record).map((v) => (v.id === viewId ? next : v)),
    );
    return viewInfo(table, next);
  }

  delete(table: TableName, viewId: string, etag?: string): void {
    const record = this.table(table);
    const current = this.view(table, viewId);
    checkEtag(current, etag, table);
    if (current.deletionProtection) {
      throw failedPrecondition(
        `Authorized view ${viewName(table, viewId)} is protected against deletion: update it with deletion_protection false first`,
      );
    }
    this.setViews(
      table,
      record,
      viewsOf(record).filter((v) => v.id !== viewId),
    );
  }

  /** The compiled view a data call names (NOT_FOUND for a view, or table, that does not exist). */
  matcher(table: TableName, viewId: string): ViewMatcher {
    const record = this.view(table, viewId);
    let m = this.compiled.get(record);
    if (m === undefined) {
      m = compileSubsetView(record.subset);
      this.compiled.set(record, m);
    }
    return m;
  }

  private table(name: TableName): TableRecord {
    const record = this.catalog.instance(name)?.tables.get(name.table);
    if (record === undefined) throw notFound(`Table ${tableNameString(name)} not found`);
    return record;
  }

  private view(table: TableName, viewId: string): AuthorizedViewRecord {
    const v = viewsOf(this.table(table)).find((x) => x.id === viewId);
    if (v === undefined) throw notFound(`Authorized view ${viewName(table, viewId)} not found`);
    return v;
  }

  private setViews(name: TableName, record: TableRecord, views: readonly AuthorizedViewRecord[]): void {
    this.catalog.instance(name)!.tables.set(name.table, { ...record, authorizedViews: views });
  }
}

/** The views of a table record that are protected against deletion (they also protect the table and instance). */
export function protectedViews(record: TableRecord): string[] {
  return viewsOf(record)
    .filter((v) => v.deletionProtection)
    .map((v) => v.id);
}

/** The views of a table record that name `family` (a family drop would leave them naming one the table lacks). */
export function viewsNamingFamily(record: TableRecord, family: string): string[] {
  return viewsOf(record)
    .filter((v) => v.subset.familySubsets.some((f) => f.family === family))
    .map((v) => v.id);
}

export const viewName = (table: TableName, id: string): string => `${tableNameString(table)}/authorizedViews/${id}`;

const viewsOf = (record: TableRecord): readonly AuthorizedViewRecord[] => record.authorizedViews ?? [];

const byId = (a: AuthorizedViewRecord, b: AuthorizedViewRecord): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function checkedSubset(subset: SubsetView): SubsetView {
  const normalized = normalizeSubsetView(subset);
  validateSubsetView(normalized);
  return normalized;
}

function checkFamilies(record: TableRecord, subset: SubsetView, table: TableName, update: 'update' | undefined): void {
  const missing = subset.familySubsets.map((f) => f.family).filter((f) => !record.families.some((x) => x.name === f));
  if (missing.length === 0) return;
  throw failedPrecondition(
    `Table ${tableNameString(table)} has no column famil${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}: an authorized view covers only families the table has` +
      (update === 'update' ? ' (set ignore_warnings to store the view anyway)' : ''),
  );
}

function checkEtag(current: AuthorizedViewRecord, etag: string | undefined, table: TableName): void {
  checkResourceEtag(`authorized view ${viewName(table, current.id)}`, current.etag, etag);
}

function viewInfo(table: TableName, v: AuthorizedViewRecord): AuthorizedViewInfo {
  return {
    table: { project: table.project, instance: table.instance, table: table.table },
    id: v.id,
    subset: v.subset,
    deletionProtection: v.deletionProtection,
    etag: v.etag,
    createTimeMillis: v.createTimeMillis,
  };
}
