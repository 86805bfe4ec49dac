import type { DatabaseCore } from '../../db/api.js';
import { TabletopError, isTabletopError } from '../../model/errors.js';
import { type InstanceName, instanceNameString } from '../../model/names.js';
import { createSqlEngine } from '../../sql/index.js';
import type { MaterializedSource, ViewCatalog } from '../../sql/views.js';

/**
 * The SQL engine's view of an instance's logical views: the db's records (query and etag), read at each analysis,
 * so that a changed view expires the prepared queries that read it. Materialized views come from `materialized`
 * (the materialized view engine; none by default).
 */
export function dbViewCatalog(
  db: Pick<DatabaseCore, 'getLogicalView'>,
  materialized: (instance: InstanceName, id: string) => MaterializedSource | undefined = () => undefined,
): ViewCatalog {
  return {
    logicalView(instance, id) {
      try {
        const v = db.getLogicalView(instance, id);
        return { query: v.query, etag: v.etag };
      } catch (e) {
        if (isTabletopError(e, 'NotFound') || isTabletopError(e, 'InvalidArgument')) return undefined;
        throw e;
      }
    },
    materializedView: materialized,
  };
}

/** Checks the query of a logical view before CreateLogicalView or UpdateLogicalView stores it. */
export type LogicalViewQueryCheck = (instance: InstanceName, viewId: string, query: string) => Promise<void>;

/**
 * Prepares the query (no parameters) with the SQL engine over the instance's tables and views, as they will be
 * once the view has this query: a query that does not analyze (syntax, unknown table or column, a type error, a
 * parameter, a view that would read itself through others) is INVALID_ARGUMENT with its position.
 */
export function logicalViewQueryCheck(db: DatabaseCore, views: ViewCatalog): LogicalViewQueryCheck {
  return async (instance, viewId, query) => {
    const pending: ViewCatalog = {
      logicalView: (i, id) =>
        id === viewId && i.project === instance.project && i.instance === instance.instance
          ? { query, etag: 'pending' }
          : views.logicalView(i, id),
      materializedView: (i, id) => views.materializedView(i, id),
    };
    try {
      await createSqlEngine(db, { views: pending }).prepare(instanceNameString(instance), query, new Map());
    } catch (e) {
      if (isTabletopError(e, 'InvalidArgument') || isTabletopError(e, 'NotFound')) {
        throw new TabletopError('InvalidArgument', `The query of logical view ${viewId} is not valid: ${e.message}`);
      }
      throw e;
    }
  };
}
