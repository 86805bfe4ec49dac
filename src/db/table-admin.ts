import type { LogFields } from '../log.js';
import type { ByteString } from '../model/bytes.js';
import { prefixSuccessor } from '../model/bytes.js';
import type { Clock } from '../model/clock.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../model/errors.js';
import { FULL_RANGE, type KeyRange, intersectRanges } from '../model/key-range.js';
import { LIMITS } from '../model/limits.js';
import type { InstanceName, TableName } from '../model/names.js';
import { INTERNAL_TABLE_PREFIX, tableNameString, validateTableId } from '../model/names.js';
import { idHolder } from './catalog/resource-ids.js';
import type { MaybePromise, StorageEngine } from '../storage/store.js';
import { normalizeSplits } from '../tablet/splits.js';
import { TabletMap } from '../tablet/tablet-map.js';
import type { TabletRecord } from '../tablet/tablet.js';
import type { FamilyModification, TableInfo, TableSpec } from './api.js';
import type { Catalog, InstanceEntry } from './catalog/catalog.js';
import type { TableRecord } from './catalog/catalog-state.js';
import type { InstanceAdmin } from './catalog/instance-admin.js';
import { planFamilyChange, validateNewFamilies } from './families.js';
import { andThen, forEachInOrder } from './maybe.js';
import type { AccessRecorder } from './access.js';
import { Schema } from './schema.js';
import { TableRuntime } from './table-runtime.js';

/**
 * Table Admin: tables, their families, tablets and consistency tokens.
 * The catalog holds the records; `runtimes` the live side (schema, tablets,
 * locks) by table uid. Every method validates its input before changing
 * anything, and a change is committed all at once.
 */
/** Store ids that begin with this belong to the system, not to a table (table stores are `<uid>.<n>`). */
export const SYSTEM_STORE_PREFIX = '_';

export class TableAdmin {
  private readonly runtimes = new Map<string, TableRuntime>();
  /** Tables whose stores are being opened (CreateTable in flight), by "project/instance/table". */
  private readonly creating = new Set<string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly instances: InstanceAdmin,
    private readonly engine: StorageEngine,
    private readonly clock: Clock,
    private readonly warn: (message: string, fields?: LogFields) => void = () => undefined,
    /** Where each table's traffic is recorded (CreateDatabaseOptions.access); nothing records without it. */
    private readonly access?: AccessRecorder,
  ) {}

  /** Opens the stores of the tables already in the catalog (a catalog loaded from disk). */
  openExisting(): MaybePromise<void> {
    const tables = [...this.catalog.allTables()];
    // Stores no table names: an empty one (a CreateTable cut short) is dropped; one that holds
    // data (a deletion cut short by a crash) is kept and reported, never thrown away unasked.
    const named = new Set(tables.flatMap(({ table }) => table.tablets.map((t) => t.id)));
    for (const { backup } of this.catalog.allBackups()) for (const s of backup.stores) named.add(s.id);
    // System stores (`_…`, such as insight's history) belong to no table: they are never orphans.
    const orphans = this.engine.storeIds().filter((id) => !named.has(id) && !id.startsWith(SYSTEM_STORE_PREFIX));
    const dropped = forEachInOrder(orphans, (id) =>
      andThen(this.engine.openStore(id), (store) => {
        if (store.stats().rows === 0) return this.engine.deleteStore(id);
        this.warn(`storage holds store ${id} with data (about ${store.stats().rows} rows) that no table names; it is kept untouched`, {
          event: 'orphan-store',
          store: id,
          rows: store.stats().rows,
        });
        return undefined;
      }),
    );
    return andThen(dropped, () =>
      forEachInOrder(tables, ({ name, table }) =>
        andThen(
          TabletMap.open(table.tablets, (id) => this.engine.openStore(id)),
          (map) => void this.addRuntime(name, table, map),
        ),
      ),
    );
  }

  /** The live table, or NotFound. */
  runtime(name: TableName): TableRuntime {
    const record = this.record(name);
    const runtime = this.runtimes.get(record.uid);
    if (runtime === undefined) throw notFound(`Table ${tableNameString(name)} not found`);
    return runtime;
  }

  /** Every live table (for background work). */
  liveTables(): TableRuntime[] {
    return [...this.runtimes.values()];
  }

  createTable(name: TableName, spec: TableSpec): MaybePromise<TableInfo> {
    if (spec.internal === true) {
      if (!name.table.startsWith(INTERNAL_TABLE_PREFIX))
        throw invalidArgument(`An internal table's id must begin with ${INTERNAL_TABLE_PREFIX}`);
    } else validateTableId(name.table);
    validateNewFamilies(spec.families);
    const splits = normalizeSplits(spec.initialSplits);
    // The instance is created (implicitly, when it does not exist) only once the table is.
    const key = this.checkNewTable(name);
    const uid = this.catalog.newId('t');
    const tablets = TabletMap.recordsForSplits(splits, () => `${uid}.${this.catalog.newId('')}`);
    this.creating.add(key);
    let opened: MaybePromise<TabletMap>;
    try {
      opened = TabletMap.open(tablets, (id) => this.engine.openStore(id));
    } catch (e) {
      this.creating.delete(key);
      throw e;
    }
    const commit = (map: TabletMap): TableInfo => {
      this.creating.delete(key);
      const record: TableRecord = {
        id: name.table,
        uid,
        families: spec.families.map((f) => ({ name: f.name, gcRule: f.gcRule, valueType: f.valueType })),
        granularity: 'millis',
        deletionProtection: spec.deletionProtection,
        createTimeMillis: Math.floor(this.clock.nowMicros() / 1000),
        tablets,
        initialSplits: splits,
        tokensIssued: 0,
      };
      // Creates the instance implicitly when it does not exist (or was deleted while the stores opened).
      this.instances.use(name).tables.set(name.table, record);
      this.addRuntime(name, record, map);
      return tableInfo(name, record);
    };
    if (opened instanceof Promise) {
      return opened.then(commit, (e: unknown) => {
        this.creating.delete(key);
        throw e;
      });
    }
    return commit(opened);
  }

  /**
   * Creates table `name` over clones of `sources` (a backup's stores, with their key ranges), with `families`:
   * the engine makes the clones and the catalog naming the new table durable in one atomic step (`catalogJson`
   * serializes the catalog once the record is in), so a crash leaves either no table or the whole of it.
   */
  async createFromStores(
    name: TableName,
    families: TableRecord['families'],
    sources: readonly TabletRecord[],
    restoreInfo: TableRecord['restoreInfo'],
    meta: { readonly key: string; readonly catalogJson: () => string },
  ): Promise<TableInfo> {
    validateTableId(name.table);
    const key = this.checkNewTable(name);
    const uid = this.catalog.newId('t');
    const tablets: TabletRecord[] = sources.map((s) => ({ id: `${uid}.${this.catalog.newId('')}`, start: s.start, end: s.end }));
    const record: TableRecord = {
      id: name.table,
      uid,
      families,
      granularity: 'millis',
      deletionProtection: false,
      createTimeMillis: Math.floor(this.clock.nowMicros() / 1000),
      tablets,
      tokensIssued: 0,
      ...(restoreInfo === undefined ? {} : { restoreInfo }),
    };
    this.creating.add(key);
    try {
      await this.engine.cloneStores(
        sources.map((s, i) => [s.id, tablets[i]!.id] as const),
        {
          key: meta.key,
          value: () => {
            this.instances.use(name).tables.set(name.table, record);
            return meta.catalogJson();
          },
        },
      );
      this.addRuntime(name, record, await TabletMap.open(tablets, (id) => this.engine.openStore(id)));
      return tableInfo(name, record);
    } catch (e) {
      if (this.catalog.instance(name)?.tables.get(name.table)?.uid === uid) this.catalog.instance(name)!.tables.delete(name.table);
      throw e;
    } finally {
      this.creating.delete(key);
    }
  }

  getTable(name: TableName): TableInfo {
    return tableInfo(name, this.record(name));
  }

  listTables(instance: InstanceName): TableInfo[] {
    const entry = this.instances.find(instance);
    return [...entry.tables.values()]
      .filter((t) => !t.id.startsWith(INTERNAL_TABLE_PREFIX))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((t) => tableInfo({ ...instance, table: t.id }, t));
  }

  updateTable(name: TableName, update: { readonly deletionProtection?: boolean }): TableInfo {
    const record = this.record(name);
    const next: TableRecord = { ...record, deletionProtection: update.deletionProtection ?? record.deletionProtection };
    this.setRecord(name, next);
    return tableInfo(name, next);
  }

  deleteTable(name: TableName): MaybePromise<void> {
    const check = (): TableRecord => {
      const record = this.record(name);
      if (record.deletionProtection) {
        throw failedPrecondition(`Table ${tableNameString(name)} cannot be deleted: deletion protection is enabled`);
      }
      return record;
    };
    const record = check();
    const runtime = this.runtimes.get(record.uid);
    const remove = (current: TableRecord): MaybePromise<void> => {
      this.instance(name).tables.delete(name.table);
      this.runtimes.delete(current.uid);
      if (runtime !== undefined) runtime.deleted = true;
      this.access?.dropTable(current.uid);
      return this.dropStores(current);
    };
    if (runtime === undefined) return remove(record);
    // Exclusive: writes already inside finish first, and schema changes in progress complete;
    // writes held back at the gate then find the table gone (NotFound).
    return runtime.gate.exclusive(() => {
      const current = check();
      if (current.uid !== record.uid) throw notFound(`Table ${tableNameString(name)} not found`);
      return remove(current);
    });
  }

  /** Drops the stores of tables removed with their instance, and what the access recorder keeps of them. */
  dropTables(tables: readonly TableRecord[]): MaybePromise<void> {
    return forEachInOrder(tables, (record) => {
      const runtime = this.runtimes.get(record.uid);
      this.runtimes.delete(record.uid);
      // Found by protocol fuzzing: instances deleted with their tables left each table's recorder behind.
      this.access?.dropTable(record.uid);
      if (runtime === undefined) return this.dropStores(record);
      runtime.deleted = true;
      return runtime.gate.exclusive(() => this.dropStores(record));
    });
  }

  modifyColumnFamilies(name: TableName, modifications: readonly FamilyModification[]): Promise<TableInfo> {
    const record = this.record(name);
    // Validate now, so a bad request fails before it waits for anything.
    planFamilyChange(tableNameString(name), record.families, modifications, record.deletionProtection);
    const runtime = this.runtime(name);
    // Exclusive: schema changes apply one at a time, and no write runs while a family's data is
    // dropped (a write validated against the old family could land after the drop and resurface
    // if the family is created again).
    return runtime.gate.exclusive(async () => {
      const current = this.record(name);
      if (current.uid !== record.uid) throw notFound(`Table ${tableNameString(name)} not found`);
      const change = planFamilyChange(tableNameString(name), current.families, modifications, current.deletionProtection);
      if (change.dropped.size > 0) {
        // First hide the dropped families (readers that start now do not see them), then drop
        // their data; only then publish the new schema, which may create a family of the same name.
        this.commitFamilies(name, { ...current, families: current.families.filter((f) => !change.dropped.has(f.name)) });
        for (const tablet of runtime.tablets.tablets) {
          for (const family of change.dropped) {
            const r = tablet.store.dropFamily(family);
            if (r instanceof Promise) await r;
          }
        }
      }
      const next: TableRecord = { ...this.record(name), families: change.families };
      this.commitFamilies(name, next);
      return tableInfo(name, next);
    });
  }

  dropRowRange(
    name: TableName,
    target: { readonly kind: 'prefix'; readonly prefix: ByteString } | { readonly kind: 'all' },
  ): MaybePromise<void> {
    const runtime = this.runtime(name);
    let range: KeyRange = FULL_RANGE;
    if (target.kind === 'prefix') {
      if (target.prefix.length === 0)
        throw invalidArgument('DropRowRange: the row key prefix must not be empty (use delete_all_data_from_table to drop every row)');
      range = { start: target.prefix, end: prefixSuccessor(target.prefix) };
    }
    // Exclusive, like a family drop: a split or merge swapping the tablets meanwhile would lose
    // the drop (its new stores inherit the drops recorded before it), and the tablets are read
    // only once nothing can replace them.
    return runtime.gate.exclusive(() => {
      if (runtime.deleted) throw notFound(`Table ${tableNameString(name)} not found`);
      return forEachInOrder(runtime.tablets.overlapping(range), (tablet) => {
        const part = intersectRanges(range, tablet.range);
        const covers = part.start === tablet.range.start && part.end === tablet.range.end;
        // A store only holds its tablet's keys: dropping all of it is the cheapest drop there is.
        return tablet.store.dropRange(covers ? FULL_RANGE : part);
      });
    });
  }

  generateConsistencyToken(name: TableName): string {
    const record = this.record(name);
    const n = record.tokensIssued + 1;
    this.setRecord(name, { ...record, tokensIssued: n });
    return Buffer.from(`${record.uid}/${n}`, 'latin1').toString('base64url');
  }

  checkConsistency(name: TableName, token: string): boolean {
    const record = this.record(name);
    const [uid, n] = Buffer.from(token, 'base64url').toString('latin1').split('/');
    const seq = Number(n);
    if (uid !== record.uid || !Number.isInteger(seq) || seq < 1 || seq > record.tokensIssued) {
      throw invalidArgument(`Consistency token "${token}" was not issued for table ${tableNameString(name)}`);
    }
    // One node: every write acknowledged before the token was issued is visible everywhere.
    return true;
  }

  /** AlreadyExists (or FailedPrecondition at the instance's table limit) unless `name` can be created; its creating key. */
  private checkNewTable(name: TableName): string {
    const tables = this.catalog.instance(name)?.tables;
    const key = tableKey(name);
    if (tables?.has(name.table) === true || this.creating.has(key)) {
      throw alreadyExists(`Table ${tableNameString(name)} already exists`);
    }
    const holder = idHolder(this.catalog.instance(name), name.table);
    if (holder !== undefined && holder !== 'table') {
      throw alreadyExists(`Instance ${name.instance} already has a ${holder} named ${name.table}: a table needs an id of its own`);
    }
    if (tables !== undefined && tables.size >= LIMITS.maxTablesPerInstance) {
      throw failedPrecondition(
        `Instance ${name.instance} already has ${tables.size} tables; the limit is ${LIMITS.maxTablesPerInstance} tables per instance`,
      );
    }
    return key;
  }

  private addRuntime(name: TableName, record: TableRecord, map: TabletMap): void {
    this.runtimes.set(
      record.uid,
      new TableRuntime(
        name,
        record.uid,
        new Schema(record.families, tableNameString(name)),
        map,
        () => this.clock.nowMicros(),
        this.access?.openTable(record.uid, name),
      ),
    );
  }

  private record(name: TableName): TableRecord {
    const record = this.catalog.instance(name)?.tables.get(name.table);
    if (record === undefined) throw notFound(`Table ${tableNameString(name)} not found`);
    return record;
  }

  private instance(name: InstanceName): InstanceEntry {
    const entry = this.catalog.instance(name);
    if (entry === undefined) throw notFound(`Instance projects/${name.project}/instances/${name.instance} not found`);
    return entry;
  }

  /** The catalog record of a live table. */
  tableRecord(name: TableName): TableRecord {
    return this.record(name);
  }

  /** Replaces the tablets of a table's record (a split or merge about to be committed). */
  setTablets(name: TableName, tablets: TableRecord['tablets']): void {
    this.setRecord(name, { ...this.record(name), tablets });
  }

  private setRecord(name: TableName, record: TableRecord): void {
    this.instance(name).tables.set(name.table, record);
  }

  private commitFamilies(name: TableName, record: TableRecord): void {
    this.setRecord(name, record);
    const runtime = this.runtimes.get(record.uid);
    if (runtime !== undefined) runtime.schema = new Schema(record.families, tableNameString(name));
  }

  private dropStores(record: TableRecord): MaybePromise<void> {
    return forEachInOrder(record.tablets, (t) => andThen(this.engine.deleteStore(t.id), () => undefined));
  }
}

function tableKey(name: TableName): string {
  return `${name.project}/${name.instance}/${name.table}`;
}

export function tableInfo(name: TableName, record: TableRecord): TableInfo {
  return {
    name: { project: name.project, instance: name.instance, table: name.table },
    families: record.families,
    granularity: record.granularity,
    deletionProtection: record.deletionProtection,
    createTimeMillis: record.createTimeMillis,
    ...(record.restoreInfo === undefined ? {} : { restoreInfo: record.restoreInfo }),
  };
}
