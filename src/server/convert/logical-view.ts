import type { LogicalViewInfo, LogicalViewSpec } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { childNameString } from '../../model/names.js';
import type { PFieldMask } from './proto-types.js';
import { maskPaths } from './table.js';

/** google.bigtable.admin.v2.LogicalView and its requests, as the loader decodes them (convert/proto-types.ts). */
type Opt<T> = T | null | undefined;

export interface PLogicalView {
  name?: Opt<string>;
  query?: Opt<string>;
  etag?: Opt<string>;
  deletionProtection?: Opt<boolean>;
}
export interface PCreateLogicalViewRequest {
  parent?: Opt<string>;
  logicalViewId?: Opt<string>;
  logicalView?: Opt<PLogicalView>;
}
export interface PUpdateLogicalViewRequest {
  logicalView?: Opt<PLogicalView>;
  updateMask?: Opt<PFieldMask>;
}
export interface PDeleteLogicalViewRequest {
  name?: Opt<string>;
  etag?: Opt<string>;
}

export function logicalViewToProto(info: LogicalViewInfo): PLogicalView {
  return {
    name: childNameString(info.instance, 'logicalViews', info.id),
    query: info.query,
    etag: info.etag,
    deletionProtection: info.deletionProtection,
  };
}

/** CreateLogicalView's view: the query is required. */
export function logicalViewSpecFromProto(v: PLogicalView | null | undefined): LogicalViewSpec {
  const query = v?.query ?? '';
  if (query.trim() === '') throw invalidArgument('CreateLogicalView: logical_view.query is required');
  return { query, deletionProtection: v?.deletionProtection === true };
}

/** UpdateLogicalView: the fields update_mask names (query, deletion_protection); the mask is required. */
export function logicalViewUpdateFromProto(v: PLogicalView, mask: PFieldMask | null | undefined): Partial<LogicalViewSpec> {
  const paths = maskPaths(mask);
  if (paths.length === 0) throw invalidArgument('UpdateLogicalView: update_mask is required (query, deletion_protection)');
  const update: { -readonly [K in keyof LogicalViewSpec]?: LogicalViewSpec[K] } = {};
  for (const p of paths) {
    if (p === 'query') {
      if ((v.query ?? '').trim() === '')
        throw invalidArgument('UpdateLogicalView: update_mask names query, but logical_view.query is empty');
      update.query = v.query!;
    } else if (p === 'deletion_protection') update.deletionProtection = v.deletionProtection === true;
    else throw invalidArgument(`UpdateLogicalView: update_mask path "${p}" is not supported (supported: query, deletion_protection)`);
  }
  return update;
}
