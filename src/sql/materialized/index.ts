import type { ViewCatalog } from '../views.js';
import type { MaterializedViewsDb } from './live-view.js';
import { MaterializedViewEngine, type MaterializedViewsOptions } from './maintainer.js';

export type { MaterializedViewsDb } from './live-view.js';
export type { MaterializedViewsOptions } from './maintainer.js';
export { MaterializedViewEngine } from './maintainer.js';
export { type ViewDefinition, defineView } from './definition.js';

/** The continuous materialized views of a database: what FROM reads, and the engine's lifecycle. */
export interface MaterializedViews {
  /** The SQL engine's view catalog part for materialized views (createSqlEngine's `views`). */
  readonly views: Pick<ViewCatalog, 'materializedView'>;
  /** Attaches to the db and brings every view up (rebuilding those not closed cleanly); before serving. */
  start(): Promise<void>;
  /** Resolves once every acknowledged write is applied to the views. */
  idle(): Promise<void>;
  /** Checks again the rows of views over families with an age rule (a timer does it every `expiryCheckMillis`). */
  recheckExpiring(): Promise<void>;
  /** Applies what is pending and marks the views clean; before the db closes. */
  close(): Promise<void>;
}

export function createMaterializedViews(db: MaterializedViewsDb, options: MaterializedViewsOptions = {}): MaterializedViews {
  const engine = new MaterializedViewEngine(db, options);
  return {
    views: engine.catalog(),
    start: () => engine.start(),
    idle: () => engine.idle(),
    recheckExpiring: () => engine.recheckExpiring(),
    close: () => engine.close(),
  };
}
