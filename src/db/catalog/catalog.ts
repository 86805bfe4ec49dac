import type { InstanceName, TableName } from '../../model/names.js';
import type { AppProfileRecord, BackupRecord, CatalogState, ClusterRecord, InstanceRecord, TableRecord } from './catalog-state.js';

/**
 * The catalog in memory: instances (with their clusters, app profiles and
 * tables) per project. Records are immutable values; a change replaces the
 * record. Lookups are by map; `toState()` gives the plain persisted form.
 *
 * Instances a client uses without creating them exist implicitly: the
 * database materialises them (with a default cluster and app profile) on
 * first use, after which they are listed like created ones.
 */
export class Catalog {
  private nextId: number;
  private readonly instances = new Map<string, InstanceEntry>();

  constructor(state?: CatalogState) {
    this.nextId = state?.nextId ?? 1;
    for (const record of state?.instances ?? []) {
      const entry = new InstanceEntry(record);
      this.instances.set(instanceKey(record), entry);
    }
  }

  /** A fresh id, unique for the life of the catalog. */
  newId(prefix: string): string {
    return `${prefix}${(this.nextId++).toString(36)}`;
  }

  instance(name: InstanceName): InstanceEntry | undefined {
    return this.instances.get(instanceKey({ project: name.project, id: name.instance }));
  }

  /** Adds a new instance (callers check that it does not exist yet). */
  addInstance(record: InstanceRecord): InstanceEntry {
    const entry = new InstanceEntry(record);
    this.instances.set(instanceKey(record), entry);
    return entry;
  }

  deleteInstance(name: InstanceName): void {
    this.instances.delete(instanceKey({ project: name.project, id: name.instance }));
  }

  instancesOf(project: string): InstanceEntry[] {
    const out: InstanceEntry[] = [];
    for (const entry of this.instances.values()) if (entry.record.project === project) out.push(entry);
    return out.sort((a, b) => (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
  }

  /** Every instance (for background work). */
  allInstances(): Iterable<InstanceEntry> {
    return this.instances.values();
  }

  /** Every table of every instance (for background work). */
  *allTables(): Iterable<{ name: TableName; table: TableRecord }> {
    for (const entry of this.instances.values()) {
      for (const table of entry.tables.values()) {
        yield { name: { project: entry.record.project, instance: entry.record.id, table: table.id }, table };
      }
    }
  }

  /** Every backup of every cluster (background work; the stores that backups hold). */
  *allBackups(): Iterable<{ entry: InstanceEntry; cluster: string; backup: BackupRecord }> {
    for (const entry of this.instances.values()) {
      for (const c of entry.clusters) for (const backup of c.backups ?? []) yield { entry, cluster: c.id, backup };
    }
  }

  toState(): CatalogState {
    return { version: 1, nextId: this.nextId, instances: [...this.instances.values()].map((e) => e.toRecord()) };
  }
}

/**
 * One instance: its record (spec, clusters, app profiles) plus its tables,
 * kept in a map because they change far more often than the rest.
 */
export class InstanceEntry {
  record: Omit<InstanceRecord, 'tables'>;
  readonly tables = new Map<string, TableRecord>();

  constructor(record: InstanceRecord) {
    const { tables, ...rest } = record;
    this.record = rest;
    for (const t of tables) this.tables.set(t.id, t);
  }

  get clusters(): readonly ClusterRecord[] {
    return this.record.clusters;
  }

  get appProfiles(): readonly AppProfileRecord[] {
    return this.record.appProfiles;
  }

  update(change: Partial<Omit<InstanceRecord, 'tables' | 'project' | 'id'>>): void {
    this.record = { ...this.record, ...change };
  }

  toRecord(): InstanceRecord {
    return { ...this.record, tables: [...this.tables.values()] };
  }
}

function instanceKey(r: { project: string; id: string }): string {
  return `${r.project}/${r.id}`;
}
