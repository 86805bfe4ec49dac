import type { DatabaseCore } from '../../db/api.js';
import type { TabletopDatabase } from '../../db/index.js';

/**
 * What the HTTP server reads of the database: the core API, the projects it knows, its operational figures, and
 * what the schema advisor reads of the stores (sizes, key samples, row shapes: no usage recorded).
 */
export type ServedDatabase = DatabaseCore &
  Pick<TabletopDatabase, 'listProjects' | 'stats' | 'tableSize' | 'keyDistribution' | 'profileRows'> &
  Partial<Pick<TabletopDatabase, 'materializedViewStatus'>>;

/** Every table of every instance of every project, in name order. */
export function* allTables(db: ServedDatabase): Generator<ReturnType<DatabaseCore['listTables']>[number]> {
  for (const project of db.listProjects()) {
    for (const instance of db.listInstances(project)) {
      const tables = db.listTables(instance.name).sort((a, b) => (a.name.table < b.name.table ? -1 : a.name.table > b.name.table ? 1 : 0));
      yield* tables;
    }
  }
}
