import type { AuthorizedViewInfo, DatabaseCore } from '../../db/api.js';
import { parseTableName } from '../../model/names.js';
import {
  type PAuthorizedView,
  type PCreateAuthorizedViewRequest,
  type PDeleteAuthorizedViewRequest,
  type PGetAuthorizedViewRequest,
  type PListAuthorizedViewsRequest,
  type PUpdateAuthorizedViewRequest,
  authorizedViewName,
  authorizedViewSpecFromProto,
  authorizedViewToProto,
  authorizedViewUpdateFromProto,
  parseAuthorizedViewName,
  responseViewFromProto,
} from '../convert/authorized-view.js';
import { type OperationMetadataType, operationToProto } from '../convert/operation.js';
import type { POperation } from '../convert/proto-types.js';
import { resource, unary } from '../method-table.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';
import { required } from './required.js';

/**
 * The Table Admin API's authorized views. Create and Update answer a finished operation (GetOperation finds it
 * under the view's name) whose response is the whole view and whose metadata carries the request's times;
 * Get answers BASIC unless asked (NAME_ONLY, FULL), List NAME_ONLY, paged; Update takes an update_mask
 * (subset_view, deletion_protection, or `*` for both) and ignore_warnings; Update and Delete honour the etag.
 */
export function authorizedViewMethods(db: DatabaseCore, operations: OperationStore) {
  /** The finished operation of a Create or Update. */
  const done = (info: AuthorizedViewInfo, metadata: OperationMetadataType, started: number): POperation =>
    operationToProto(operations.add(authorizedViewName(info), { kind: 'authorizedView', authorizedView: info }, metadata, started));

  return {
    CreateAuthorizedView: unary<PCreateAuthorizedViewRequest, POperation>(
      { resource: (req) => resource('table', req.parent) },
      async (req) => {
        const started = Date.now();
        const table = parseTableName(required(req.parent, 'CreateAuthorizedView', 'parent'));
        const id = required(req.authorizedViewId, 'CreateAuthorizedView', 'authorized_view_id');
        const info = await db.createAuthorizedView(table, id, authorizedViewSpecFromProto(req.authorizedView));
        return done(info, 'CreateAuthorizedViewMetadata', started);
      },
    ),

    GetAuthorizedView: unary<PGetAuthorizedViewRequest, PAuthorizedView>(
      { resource: (req) => resource('authorizedView', req.name) },
      (req) => {
        const n = parseAuthorizedViewName(required(req.name, 'GetAuthorizedView', 'name'));
        return authorizedViewToProto(db.getAuthorizedView(n.table, n.id), responseViewFromProto(req.view, 'BASIC'));
      },
    ),

    ListAuthorizedViews: unary<PListAuthorizedViewsRequest, { authorizedViews: PAuthorizedView[]; nextPageToken: string }>(
      { resource: (req) => resource('table', req.parent) },
      (req) => {
        const table = parseTableName(required(req.parent, 'ListAuthorizedViews', 'parent'));
        const view = responseViewFromProto(req.view, 'NAME_ONLY');
        const { items, nextPageToken } = page(db.listAuthorizedViews(table), (v) => v.id, req.pageSize, req.pageToken);
        return { authorizedViews: items.map((v) => authorizedViewToProto(v, view)), nextPageToken };
      },
    ),

    UpdateAuthorizedView: unary<PUpdateAuthorizedViewRequest, POperation>(
      { resource: (req) => resource('authorizedView', req.authorizedView?.name) },
      async (req) => {
        const started = Date.now();
        const view = req.authorizedView ?? {};
        const n = parseAuthorizedViewName(required(view.name, 'UpdateAuthorizedView', 'authorized_view.name'));
        db.getAuthorizedView(n.table, n.id); // NOT_FOUND before the update is read
        const update = authorizedViewUpdateFromProto(view, req.updateMask);
        const info = await db.updateAuthorizedView(n.table, n.id, update, {
          etag: view.etag ?? undefined,
          ignoreWarnings: req.ignoreWarnings === true,
        });
        return done(info, 'UpdateAuthorizedViewMetadata', started);
      },
    ),

    DeleteAuthorizedView: unary<PDeleteAuthorizedViewRequest, object>(
      { resource: (req) => resource('authorizedView', req.name) },
      async (req) => {
        const n = parseAuthorizedViewName(required(req.name, 'DeleteAuthorizedView', 'name'));
        await db.deleteAuthorizedView(n.table, n.id, req.etag ?? undefined);
        return {};
      },
    ),
  };
}
