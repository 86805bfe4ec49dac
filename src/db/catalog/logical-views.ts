import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../model/errors.js';
import { checkEtag as checkResourceEtag, validateChildId } from './resource-checks.js';
import { idHolder } from './resource-ids.js';
import { type InstanceName, childNameString } from '../../model/names.js';
import type { LogicalViewInfo, LogicalViewSpec } from '../api.js';
import type { Catalog, InstanceEntry } from './catalog.js';
import type { LogicalViewRecord } from './catalog-state.js';

/** Logical view ids: as the Admin API's resource ids (table ids' alphabet), at most 128 characters. */
const MAX_VIEW_ID_LENGTH = 128;

/**
 * Logical views, kept in the catalog with their instance (InstanceRecord.logicalViews) and persisted with it:
 * named GoogleSQL queries. The db stores the query as given; the server has analyzed it with the SQL engine
 * before (the db does not know SQL). An id is unique among the instance's tables and views. Every change gives
 * a fresh etag; an etag given to update or delete must match (ABORTED otherwise, as the service answers); a view
 * with deletion protection cannot be deleted (FAILED_PRECONDITION). Deleting the instance deletes its views;
 * deleting a table that a view reads is allowed (as in the service): queries on the view then fail NOT_FOUND.
 */
export class LogicalViews {
  constructor(
    private readonly catalog: Catalog,
    /** The instance, or NOT_FOUND. */
    private readonly find: (name: InstanceName) => InstanceEntry,
  ) {}

  create(instance: InstanceName, viewId: string, spec: LogicalViewSpec): LogicalViewInfo {
    validateViewId(viewId);
    validateQuery(spec.query);
    const entry = this.find(instance);
    const holder = idHolder(entry, viewId);
    if (holder === 'logical view') throw alreadyExists(`Logical view ${viewName(instance, viewId)} already exists`);
    if (holder !== undefined) {
      throw alreadyExists(`Instance ${instance.instance} already has a ${holder} named ${viewId}: a logical view needs an id of its own`);
    }
    const record: LogicalViewRecord = {
      id: viewId,
      query: spec.query,
      deletionProtection: spec.deletionProtection,
      etag: this.catalog.newId('etag-'),
    };
    entry.update({ logicalViews: [...viewsOf(entry), record] });
    return viewInfo(instance, record);
  }

  get(instance: InstanceName, viewId: string): LogicalViewInfo {
    return viewInfo(instance, this.view(this.find(instance), instance, viewId));
  }

  list(instance: InstanceName): LogicalViewInfo[] {
    return [...viewsOf(this.find(instance))].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((v) => viewInfo(instance, v));
  }

  update(instance: InstanceName, viewId: string, update: Partial<LogicalViewSpec>, etag?: string): LogicalViewInfo {
    const entry = this.find(instance);
    const current = this.view(entry, instance, viewId);
    checkEtag(current, etag, instance);
    if (update.query !== undefined) validateQuery(update.query);
    const next: LogicalViewRecord = {
      id: viewId,
      query: update.query ?? current.query,
      deletionProtection: update.deletionProtection ?? current.deletionProtection,
      etag: this.catalog.newId('etag-'),
    };
    entry.update({ logicalViews: viewsOf(entry).map((v) => (v.id === viewId ? next : v)) });
    return viewInfo(instance, next);
  }

  delete(instance: InstanceName, viewId: string, etag?: string): void {
    const entry = this.find(instance);
    const current = this.view(entry, instance, viewId);
    checkEtag(current, etag, instance);
    if (current.deletionProtection) {
      throw failedPrecondition(
        `Logical view ${viewName(instance, viewId)} is protected against deletion: update it with deletion_protection false first`,
      );
    }
    entry.update({ logicalViews: viewsOf(entry).filter((v) => v.id !== viewId) });
  }

  private view(entry: InstanceEntry, instance: InstanceName, viewId: string): LogicalViewRecord {
    const v = viewsOf(entry).find((x) => x.id === viewId);
    if (v === undefined) throw notFound(`Logical view ${viewName(instance, viewId)} not found`);
    return v;
  }
}

const viewsOf = (entry: InstanceEntry): readonly LogicalViewRecord[] => entry.record.logicalViews ?? [];

const viewName = (instance: InstanceName, id: string): string => childNameString(instance, 'logicalViews', id);

function checkEtag(current: LogicalViewRecord, etag: string | undefined, instance: InstanceName): void {
  checkResourceEtag(`logical view ${viewName(instance, current.id)}`, current.etag, etag);
}

function validateViewId(id: string): void {
  validateChildId('logical view', id, MAX_VIEW_ID_LENGTH);
}

function validateQuery(query: string): void {
  if (query.trim() === '') throw invalidArgument('A logical view needs a query');
}

function viewInfo(instance: InstanceName, v: LogicalViewRecord): LogicalViewInfo {
  return { instance, id: v.id, query: v.query, deletionProtection: v.deletionProtection, etag: v.etag };
}
