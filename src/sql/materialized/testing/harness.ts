import type { TabletopDatabase } from '../../../db/index.js';
import type { InstanceName } from '../../../model/names.js';
import { createSqlEngine } from '../../index.js';
import { showValue } from '../../testing/show-value.js';
import type { SqlValue } from '../../types.js';
import { NO_VIEWS } from '../../views.js';
import { type MaterializedViews, type MaterializedViewsOptions, createMaterializedViews } from '../index.js';

/**
 * What the materialized view tests share: a view engine over a test database, and the comparison of a view's
 * rows with its query run from scratch through the SQL engine.
 */

export const MV_INSTANCE: InstanceName = { project: 'p', instance: 'i' };

export interface ViewHarness {
  readonly mv: MaterializedViews;
  readonly errors: unknown[];
  /** The engine's warnings (rows left out of a view). */
  readonly warnings: string[];
  /** The view's rows, each as `name=value` cells in the view's column order. */
  viewRows(id: string): Promise<string[]>;
  /** The view's query run from scratch, in the same form (view column order, rows in any order). */
  queryRows(id: string): Promise<string[]>;
  /** A query run through the SQL engine over the instance (views included): its rows as text, and rows scanned. */
  sql(query: string): Promise<{ readonly rows: string[]; readonly rowsScanned: number }>;
}

export async function startViews(db: TabletopDatabase, options: MaterializedViewsOptions = {}): Promise<ViewHarness> {
  const errors: unknown[] = [];
  const warnings: string[] = [];
  const mv = createMaterializedViews(db, {
    onError: (e) => errors.push(e),
    onWarning: (m) => warnings.push(m),
    expiryCheckMillis: 0,
    ...options,
  });
  await mv.start();
  const sql = createSqlEngine(db, { views: { ...NO_VIEWS, ...mv.views } });
  const source = (id: string) => {
    const s = mv.views.materializedView(MV_INSTANCE, id);
    if (s === undefined) throw new Error(`no materialized view ${id}`);
    return s;
  };
  return {
    mv,
    errors,
    warnings,
    async sql(query) {
      const prepared = await sql.prepare('projects/p/instances/i', query, new Map());
      const run = sql.execute('projects/p/instances/i', prepared.token, { params: new Map() });
      const rows: string[] = [];
      for await (const row of run.rows) rows.push(prepared.columns.map((c, i) => `${c.name}=${showValue(row[i] ?? null)}`).join(' '));
      return { rows, rowsScanned: run.stats().rowsScanned };
    },
    async viewRows(id) {
      const s = source(id);
      const out: string[] = [];
      for await (const row of s.rows()) out.push(s.columns.map((c, i) => `${c.name}=${showValue(row[i] ?? null)}`).join(' '));
      return out;
    },
    async queryRows(id) {
      const s = source(id);
      const view = db.getMaterializedView({ ...MV_INSTANCE, id });
      const prepared = await sql.prepare('projects/p/instances/i', view.query, new Map());
      const at = s.columns.map((c) => prepared.columns.findIndex((q) => q.name === c.name));
      const out: string[] = [];
      for await (const row of sql.execute('projects/p/instances/i', prepared.token, { params: new Map() }).rows) {
        const values: SqlValue[] = at.map((i) => row[i] ?? null);
        // A group whose raw `_key` is NULL or empty has no row (a row key cannot be empty).
        if (s.columns[0]!.name === '_key' && (values[0] === null || (values[0] as { length?: number }).length === 0)) continue;
        out.push(s.columns.map((c, i) => `${c.name}=${showValue(values[i] ?? null)}`).join(' '));
      }
      return out;
    },
  };
}
