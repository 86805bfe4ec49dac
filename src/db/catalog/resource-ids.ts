import type { InstanceEntry } from './catalog.js';

/**
 * Tables, logical views and materialized views share one namespace per
 * instance (FROM finds any of them by id): what already holds `id`, if
 * anything, for the AlreadyExists message of a create.
 */
export function idHolder(entry: InstanceEntry | undefined, id: string): 'table' | 'logical view' | 'materialized view' | undefined {
  if (entry === undefined) return undefined;
  if (entry.tables.has(id)) return 'table';
  if ((entry.record.logicalViews ?? []).some((v) => v.id === id)) return 'logical view';
  if ((entry.record.materializedViews ?? []).some((v) => v.id === id)) return 'materialized view';
  return undefined;
}
