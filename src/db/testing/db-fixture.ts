import type { Logger } from '../../log.js';
import type { Config } from '../../config.js';
import type { AccessRecorder } from '../access.js';
import type { Cell, Row } from '../../model/cell.js';
import { ManualClock } from '../../model/clock.js';
import { type ErrorCode, isTabletopError } from '../../model/errors.js';
import type { ColumnFamily } from '../../model/family.js';
import type { GcRule } from '../../model/gc-rule.js';
import type { Mutation } from '../../model/mutation.js';
import type { InstanceName, TableName } from '../../model/names.js';
import { BYTES_TYPE, type ValueType } from '../../model/value-type.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import type { StorageEngine } from '../../storage/store.js';
import type { ReadRequest, RowPuller } from '../api.js';
import { type CreateDatabaseOptions, type TabletopDatabase, createDatabase } from '../index.js';

/** Helpers shared by the database tests. */

export const INSTANCE: InstanceName = { project: 'p', instance: 'i' };
export const T0 = Date.UTC(2026, 0, 1) * 1000;

let tableCounter = 0;
export function tableName(prefix = 't'): TableName {
  return { ...INSTANCE, table: `${prefix}${++tableCounter}` };
}

export interface Fixture {
  readonly db: TabletopDatabase;
  readonly clock: ManualClock;
  readonly engine: StorageEngine;
}

export async function openDb(
  options: {
    config?: Partial<Config>;
    random?: () => number;
    engine?: StorageEngine;
    logger?: Logger;
    access?: AccessRecorder;
    /** The catalog to open with (instead of the one the engine holds). */
    catalog?: CreateDatabaseOptions['catalog'];
  } = {},
): Promise<Fixture> {
  const clock = new ManualClock(T0);
  const engine = options.engine ?? createMemoryEngine();
  const db = await createDatabase({
    engine,
    clock,
    // Background timers off: tests run GC sweeps and tablet checks when they mean to.
    config: { gcSweepIntervalMillis: 0, tabletCheckIntervalMillis: 0, balanceIntervalMillis: 0, ...options.config },
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.access === undefined ? {} : { access: options.access }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
  });
  return { db, clock, engine };
}

export function family(name: string, gcRule?: GcRule, valueType: ValueType = BYTES_TYPE): ColumnFamily {
  return { name, gcRule, valueType };
}

export async function createTable(
  f: Fixture,
  families: ColumnFamily[],
  options: { splits?: string[]; deletionProtection?: boolean; name?: TableName } = {},
): Promise<TableName> {
  const name = options.name ?? tableName();
  await f.db.createTable(name, { families, initialSplits: options.splits ?? [], deletionProtection: options.deletionProtection ?? false });
  return name;
}

export const v = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
export const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

export function set(familyName: string, qualifier: string, timestamp: number, value: string): Mutation {
  return { kind: 'setCell', family: familyName, qualifier, timestamp, value: v(value) };
}

/** "fam:qual@ts=value" (timestamps in ms), plus "[label]" when labelled. */
export function showCell(c: Cell): string {
  const labels = c.labels.length > 0 ? `[${c.labels.join(',')}]` : '';
  return `${c.family}:${c.qualifier}@${c.timestamp / 1000}=${text(c.value)}${labels}`;
}

export function showRow(r: Row): string {
  return `${r.key}: ${r.cells.map(showCell).join(' ')}`;
}

export async function drain(reader: RowPuller): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    for (let r = await reader.next(); r !== undefined; r = await reader.next()) rows.push(r);
  } finally {
    reader.close();
  }
  return rows;
}

export const ALL: ReadRequest = { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false };

export async function readAll(f: Fixture, name: TableName, request: Partial<ReadRequest> = {}): Promise<string[]> {
  return (await drain(f.db.readRows(name, { ...ALL, ...request }))).map(showRow);
}

/** The error code `fn` fails with (awaiting it), or 'none'. Non-Tabletop errors are rethrown. */
export async function codeOf(fn: () => unknown): Promise<ErrorCode | 'none'> {
  try {
    await fn();
    return 'none';
  } catch (e) {
    if (isTabletopError(e)) return e.code;
    throw e;
  }
}

/** The error `fn` fails with (awaiting it). */
export async function errorOf(fn: () => unknown): Promise<{ code: ErrorCode; message: string }> {
  try {
    await fn();
  } catch (e) {
    if (isTabletopError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
}
