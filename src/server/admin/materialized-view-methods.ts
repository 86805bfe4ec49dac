import type { DatabaseCore, MaterializedViewInfo } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { type InstanceName, parseChildName, parseInstanceName } from '../../model/names.js';
import { type PMaterializedView, materializedViewName, materializedViewToProto } from '../convert/materialized-view.js';
import { type OperationMetadataType, operationToProto } from '../convert/operation.js';
import type { PFieldMask, PNameRequest, POperation, PParentRequest } from '../convert/proto-types.js';
import { maskPaths } from '../convert/table.js';
import { resource, unary } from '../method-table.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';
import { required } from './required.js';

/**
 * The Instance Admin API's continuous materialized views. CreateMaterializedView answers its operation done
 * once the view is built from the source table's data (the query is checked first: INVALID_ARGUMENT says what
 * the service does not allow); UpdateMaterializedView changes only deletion_protection (the query is
 * immutable); DeleteMaterializedView honours the etag (ABORTED when stale) and deletion protection.
 */
export function materializedViewMethods(
  db: DatabaseCore,
  operations: OperationStore,
  instancesOf: (parent: string | null | undefined, rpc: string) => InstanceName[],
) {
  /** The finished operation of a Create or Update. */
  const done = (info: MaterializedViewInfo, metadata: OperationMetadataType, started: number): POperation =>
    operationToProto(operations.add(materializedViewName(info), { kind: 'materializedView', materializedView: info }, metadata, started));

  return {
    CreateMaterializedView: unary<
      { parent?: string | null; materializedViewId?: string | null; materializedView?: PMaterializedView | null },
      POperation
    >({ resource: (req) => resource('instance', req.parent) }, async (req) => {
      const started = Date.now();
      const instance = parseInstanceName(required(req.parent, 'CreateMaterializedView', 'parent'));
      const id = required(req.materializedViewId, 'CreateMaterializedView', 'materialized_view_id');
      const view = req.materializedView ?? {};
      const query = required(view.query, 'CreateMaterializedView', 'materialized_view.query');
      const info = await db.createMaterializedView({ ...instance, id }, { query, deletionProtection: view.deletionProtection === true });
      return done(info, 'CreateMaterializedViewMetadata', started);
    }),

    GetMaterializedView: unary<PNameRequest, PMaterializedView>({ resource: (req) => resource('materializedView', req.name) }, (req) => {
      const n = parseChildName(required(req.name, 'GetMaterializedView', 'name'), 'materializedViews');
      return materializedViewToProto(db.getMaterializedView(n));
    }),

    ListMaterializedViews: unary<PParentRequest, { materializedViews: PMaterializedView[]; nextPageToken: string }>(
      { resource: (req) => resource('instance', req.parent) },
      (req) => {
        const views = instancesOf(req.parent, 'ListMaterializedViews').flatMap((i) => db.listMaterializedViews(i));
        const { items, nextPageToken } = page(views, materializedViewName, req.pageSize, req.pageToken);
        return { materializedViews: items.map(materializedViewToProto), nextPageToken };
      },
    ),

    UpdateMaterializedView: unary<{ materializedView?: PMaterializedView | null; updateMask?: PFieldMask | null }, POperation>(
      { resource: (req) => resource('materializedView', req.materializedView?.name) },
      async (req) => {
        const started = Date.now();
        const view = req.materializedView ?? {};
        const n = parseChildName(required(view.name, 'UpdateMaterializedView', 'materialized_view.name'), 'materializedViews');
        const paths = maskPaths(req.updateMask);
        if (paths.length === 0) throw invalidArgument('UpdateMaterializedView: update_mask is required and must name the fields to update');
        for (const p of paths) {
          if (p === 'query') throw invalidArgument('UpdateMaterializedView: the query of a materialized view is immutable');
          if (p !== 'deletion_protection')
            throw invalidArgument(`UpdateMaterializedView: cannot update field ${p}; only deletion_protection`);
        }
        const info = await db.updateMaterializedView(n, { deletionProtection: view.deletionProtection === true }, view.etag ?? undefined);
        return done(info, 'UpdateMaterializedViewMetadata', started);
      },
    ),

    DeleteMaterializedView: unary<{ name?: string | null; etag?: string | null }, object>(
      { resource: (req) => resource('materializedView', req.name) },
      async (req) => {
        const n = parseChildName(required(req.name, 'DeleteMaterializedView', 'name'), 'materializedViews');
        await db.deleteMaterializedView(n, req.etag ?? undefined);
        return {};
      },
    ),
  };
}
