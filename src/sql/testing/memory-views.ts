import type { InstanceName } from '../../model/names.js';
import type { ResultColumn } from '../engine.js';
import type { SqlValue } from '../types.js';
import type { LogicalViewDefinition, MaterializedSource, ViewCatalog } from '../views.js';

/**
 * An in-memory ViewCatalog for the SQL engine's tests: logical views by query (each change a new etag) and
 * materialized views as fixed typed rows (MemoryMaterializedSource), per instance.
 */
export class MemoryViews implements ViewCatalog {
  private readonly logical = new Map<string, LogicalViewDefinition>();
  private readonly materialized = new Map<string, MaterializedSource>();
  private version = 0;

  setLogical(instance: InstanceName, id: string, query: string): this {
    this.logical.set(key(instance, id), { query, etag: `etag-${++this.version}` });
    return this;
  }

  deleteLogical(instance: InstanceName, id: string): void {
    this.logical.delete(key(instance, id));
  }

  setMaterialized(instance: InstanceName, id: string, source: MaterializedSource): this {
    this.materialized.set(key(instance, id), source);
    return this;
  }

  logicalView(instance: InstanceName, id: string): LogicalViewDefinition | undefined {
    return this.logical.get(key(instance, id));
  }

  materializedView(instance: InstanceName, id: string): MaterializedSource | undefined {
    return this.materialized.get(key(instance, id));
  }
}

/** A materialized view holding fixed rows (in key order), as the view engine would serve them. */
export class MemoryMaterializedSource implements MaterializedSource {
  constructor(
    readonly columns: readonly ResultColumn[],
    private readonly data: readonly (readonly SqlValue[])[],
    readonly fingerprint: string,
  ) {}

  async *rows(signal?: AbortSignal): AsyncIterable<readonly SqlValue[]> {
    for (const row of this.data) {
      if (signal?.aborted === true) return;
      await Promise.resolve();
      yield row;
    }
  }
}

const key = (instance: InstanceName, id: string): string => `${instance.project}/${instance.instance}/${id}`;
