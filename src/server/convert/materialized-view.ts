import type { MaterializedViewInfo } from '../../db/api.js';
import { childNameString } from '../../model/names.js';

/** google.bigtable.admin.v2.MaterializedView, as the protos' codec takes it. */
export interface PMaterializedView {
  name?: string | null;
  query?: string | null;
  etag?: string | null;
  deletionProtection?: boolean | null;
}

export function materializedViewName(view: MaterializedViewInfo): string {
  return childNameString(view.name, 'materializedViews', view.name.id);
}

export function materializedViewToProto(view: MaterializedViewInfo): PMaterializedView {
  return { name: materializedViewName(view), query: view.query, etag: view.etag, deletionProtection: view.deletionProtection };
}
