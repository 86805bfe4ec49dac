import { describe, expect, it } from 'vitest';
import type { BackupInfo } from '../../db/api.js';
import { isTabletopError } from '../../model/errors.js';
import { filterAndOrderBackups } from './backup-list.js';

const T = Date.UTC(2026, 0, 1);
const backup = (id: string, over: Partial<BackupInfo> = {}): BackupInfo => ({
  name: { project: 'p', instance: 'i', cluster: 'c', backup: id },
  sourceTable: { project: 'p', instance: 'i', table: 'orders' },
  startTimeMillis: T,
  endTimeMillis: T + 1000,
  expireTimeMillis: T + 86_400_000,
  sizeBytes: 100,
  state: 'READY',
  backupType: 'STANDARD',
  families: [],
  ...over,
});

const ALL = [
  backup('howl-1', { startTimeMillis: T + 2000, sizeBytes: 5000 }),
  backup('howl-2', { startTimeMillis: T + 1000, state: 'CREATING', endTimeMillis: undefined }),
  backup('other', { sourceTable: { project: 'p', instance: 'i', table: 'users' }, startTimeMillis: T + 3000, backupType: 'HOT' }),
];
const ids = (filter: string, orderBy = 'name'): string[] => filterAndOrderBackups(ALL, filter, orderBy).map((b) => b.name.backup);

describe('ListBackups filter and order_by', () => {
  it('orders by start_time desc without order_by, else by the fields given', () => {
    expect(ids('', '')).toEqual(['other', 'howl-1', 'howl-2']);
    expect(ids('', 'start_time')).toEqual(['howl-2', 'howl-1', 'other']);
    expect(ids('', 'size_bytes desc, name desc')).toEqual(['howl-1', 'other', 'howl-2']);
  });

  it('has (:) is a substring of strings; comparisons work on times, sizes and enums', () => {
    expect(ids('name:howl')).toEqual(['howl-1', 'howl-2']);
    expect(ids('name:"howl-2"')).toEqual(['howl-2']);
    expect(ids('source_table:users')).toEqual(['other']);
    expect(ids('state:CREATING')).toEqual(['howl-2']);
    expect(ids('state = READY')).toEqual(['howl-1', 'other']);
    expect(ids('backup_type = HOT')).toEqual(['other']);
    expect(ids('size_bytes > 1000')).toEqual(['howl-1']);
    expect(ids(`start_time >= "${new Date(T + 2000).toISOString()}"`)).toEqual(['howl-1', 'other']);
    // A backup without an end time matches no comparison on it.
    expect(ids(`end_time < "${new Date(T + 5000).toISOString()}"`)).toEqual(['howl-1', 'other']);
  });

  it('combines with AND (or juxtaposition), OR (tighter), NOT, - and parentheses', () => {
    expect(ids('name:howl AND state:READY')).toEqual(['howl-1']);
    expect(ids('name:howl state:READY')).toEqual(['howl-1']);
    expect(ids('state:READY AND name:howl OR backup_type:HOT')).toEqual(['howl-1', 'other']);
    expect(ids('NOT name:howl')).toEqual(['other']);
    expect(ids('-name:howl')).toEqual(['other']);
    expect(ids('(size_bytes > 1000 OR state:CREATING) AND name:howl')).toEqual(['howl-1', 'howl-2']);
  });

  it('refuses unknown fields, bad values and broken syntax (INVALID_ARGUMENT)', () => {
    for (const [filter, order] of [
      ['colour = red', 'name'],
      ['size_bytes > lots', 'name'],
      ['(name:howl', 'name'],
      ['name', 'name'],
      ['', 'colour'],
      ['', 'name sideways'],
    ] as const) {
      let code = 'none';
      try {
        ids(filter, order);
      } catch (e) {
        if (isTabletopError(e)) code = e.code;
      }
      expect([filter, order, code]).toEqual([filter, order, 'InvalidArgument']);
    }
  });
});
