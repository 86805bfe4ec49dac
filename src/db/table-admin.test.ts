import { describe, expect, it } from 'vitest';
import type { GcRule } from '../model/gc-rule.js';
import { isTabletopError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import { memoryLogger } from '../testing/memory-logger.js';
import { SYSTEM_STORE_PREFIX } from './table-admin.js';
import { createAsyncEngine } from './testing/async-engine.js';
import type { FamilyModification } from './api.js';
import { INSTANCE, codeOf, createTable, errorOf, family, openDb, readAll, set, tableName } from './testing/db-fixture.js';

const create = (name: string, gcRule?: GcRule): FamilyModification => ({
  kind: 'create',
  family: name,
  gcRule,
  valueType: { kind: 'bytes' },
});
const drop = (name: string): FamilyModification => ({ kind: 'drop', family: name });

describe('createTable / getTable / listTables', () => {
  it('creates a table with families in the given (creation) order', async () => {
    const f = await openDb();
    f.clock.setMicros(1_700_000_000_000_000);
    const name = tableName();
    const info = await f.db.createTable(name, {
      families: [family('zeta', { kind: 'maxVersions', versions: 1 }), family('alpha')],
      initialSplits: [],
      deletionProtection: true,
    });
    expect(info).toEqual({
      name,
      families: [family('zeta', { kind: 'maxVersions', versions: 1 }), family('alpha')],
      granularity: 'millis',
      deletionProtection: true,
      createTimeMillis: 1_700_000_000_000,
    });
    expect(f.db.getTable(name)).toEqual(info);
  });

  it('lists the tables of an instance by id', async () => {
    const f = await openDb();
    const inst = { project: 'p', instance: 'listing' };
    for (const id of ['b', 'a', 'c']) await createTable(f, [], { name: { ...inst, table: id } });
    expect(f.db.listTables(inst).map((t) => t.name.table)).toEqual(['a', 'b', 'c']);
  });

  it('rejects invalid table ids and duplicates', async () => {
    const f = await openDb();
    for (const id of ['', '-starts-with-dash', 'has space', 'a'.repeat(51), 'slash/no']) {
      expect(
        await codeOf(() => f.db.createTable({ ...INSTANCE, table: id }, { families: [], initialSplits: [], deletionProtection: false })),
      ).toBe('InvalidArgument');
    }
    const name = await createTable(f, []);
    expect(await codeOf(() => createTable(f, [], { name }))).toBe('AlreadyExists');
    expect(await codeOf(() => createTable(f, [], { name: { ...INSTANCE, table: 'a'.repeat(50) } }))).toBe('none');
    expect(await codeOf(() => createTable(f, [], { name: { ...INSTANCE, table: '_ok.name-1' } }))).toBe('none');
  });

  it('rejects bad families: names, duplicates, GC rules, too many', async () => {
    const f = await openDb();
    expect(await codeOf(() => createTable(f, [family('bad:name')]))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, [family('')]))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, [family('x'.repeat(65))]))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, [family('x'.repeat(64)), family('-_.aZ09')]))).toBe('none');
    expect(await codeOf(() => createTable(f, [family('a'), family('a')]))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, [family('a', { kind: 'maxVersions', versions: 0 })]))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, [family('a', { kind: 'maxAge', maxAgeMicros: 10 })]))).toBe('InvalidArgument');
    const many = Array.from({ length: LIMITS.maxFamiliesPerTable + 1 }, (_, i) => family(`f${i}`));
    expect(await codeOf(() => createTable(f, many))).toBe('InvalidArgument');
    expect(await codeOf(() => createTable(f, many.slice(1)))).toBe('none');
    expect(await codeOf(() => createTable(f, [family('s', undefined, { kind: 'aggregate', aggregator: 'sum', input: 'bytes' })]))).toBe(
      'InvalidArgument',
    );
  });

  it('rejects an empty initial split', async () => {
    const f = await openDb();
    expect(await codeOf(() => createTable(f, [], { splits: ['a', ''] }))).toBe('InvalidArgument');
  });

  it('allows at most 1000 tables per instance (FailedPrecondition beyond)', async () => {
    const f = await openDb();
    const inst = { project: 'p', instance: 'crowded' };
    for (let i = 0; i < LIMITS.maxTablesPerInstance; i++) await createTable(f, [], { name: { ...inst, table: `t${i}` } });
    const error = await errorOf(() => createTable(f, [], { name: { ...inst, table: 'one-too-many' } }));
    expect(error.code).toBe('FailedPrecondition');
    expect(error.message).toMatch(/1000/);
    // Another instance is not affected.
    expect(await codeOf(() => createTable(f, [], { name: { project: 'p', instance: 'roomy', table: 't' } }))).toBe('none');
  });

  it('answers NotFound for a missing table everywhere', async () => {
    const f = await openDb();
    const name = tableName('missing');
    const all = { rows: { keys: [], ranges: [] }, filter: undefined, limit: undefined, reversed: false };
    expect(await codeOf(() => f.db.getTable(name))).toBe('NotFound');
    expect(await codeOf(() => f.db.deleteTable(name))).toBe('NotFound');
    expect(await codeOf(() => f.db.updateTable(name, { deletionProtection: true }))).toBe('NotFound');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('x')], false))).toBe('NotFound');
    expect(await codeOf(() => f.db.dropRowRange(name, { kind: 'all' }))).toBe('NotFound');
    expect(await codeOf(() => f.db.generateConsistencyToken(name))).toBe('NotFound');
    expect(await codeOf(() => f.db.checkConsistency(name, 'x'))).toBe('NotFound');
    expect(await codeOf(() => f.db.readRows(name, all))).toBe('NotFound');
    expect(await codeOf(() => f.db.sampleRowKeys(name))).toBe('NotFound');
    expect(await codeOf(() => f.db.mutateRow(name, 'r', [set('f', 'q', 1000, 'v')]))).toBe('NotFound');
    expect(await codeOf(() => f.db.mutateRows(name, [{ key: 'r', mutations: [set('f', 'q', 1000, 'v')] }]))).toBe('NotFound');
    expect(await codeOf(() => f.db.checkAndMutateRow(name, 'r', undefined, [set('f', 'q', 1000, 'v')], []))).toBe('NotFound');
    expect(
      await codeOf(() => f.db.readModifyWriteRow(name, 'r', [{ kind: 'append', family: 'f', qualifier: 'q', value: new Uint8Array([1]) }])),
    ).toBe('NotFound');
  });
});

describe('deleteTable and deletion protection', () => {
  it('deletes a table and its data; a new table of the same name starts empty', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')], { splits: ['m'] });
    await f.db.mutateRows(name, [
      { key: 'a', mutations: [set('cf', 'q', 1000, '1')] },
      { key: 'z', mutations: [set('cf', 'q', 1000, '2')] },
    ]);
    await f.db.deleteTable(name);
    expect(await codeOf(() => f.db.getTable(name))).toBe('NotFound');
    await createTable(f, [family('cf')], { name });
    expect(await readAll(f, name)).toEqual([]);
  });

  it('refuses to delete a protected table until protection is lifted', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')], { deletionProtection: true });
    expect(await codeOf(() => f.db.deleteTable(name))).toBe('FailedPrecondition');
    expect((await f.db.updateTable(name, { deletionProtection: false })).deletionProtection).toBe(false);
    expect((await f.db.updateTable(name, {})).deletionProtection).toBe(false);
    await f.db.deleteTable(name);
    expect(await codeOf(() => f.db.getTable(name))).toBe('NotFound');
  });

  it('lets data be deleted from a protected table (DropRowRange), but not its families', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')], { deletionProtection: true });
    await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'x')]);
    await f.db.dropRowRange(name, { kind: 'all' });
    expect(await readAll(f, name)).toEqual([]);
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [drop('cf')], false))).toBe('FailedPrecondition');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('more')], false))).toBe('none');
  });

  it('writes in flight finish before the data goes; a write held back by the deletion fails with NotFound', async () => {
    const f = await openDb({ engine: createAsyncEngine() });
    const name = await createTable(f, [family('cf'), family('other')]);
    const inFlight = f.db.mutateRow(name, 'r1', [set('cf', 'q', 1000, 'x')]);
    // A family drop runs exclusive; a write arriving meanwhile waits at the gate...
    const dropping = f.db.modifyColumnFamilies(name, [drop('other')], false);
    await new Promise((r) => setImmediate(r));
    const heldBack = codeOf(() => f.db.mutateRow(name, 'r2', [set('cf', 'q', 1000, 'y')]));
    // ...and the table is deleted before it gets in.
    const deleting = f.db.deleteTable(name);
    await inFlight;
    await dropping;
    await deleting;
    expect(await heldBack).toBe('NotFound');
    expect(await codeOf(() => f.db.mutateRow(name, 'late', [set('cf', 'q', 1000, 'x')]))).toBe('NotFound');
  });
});

describe('modifyColumnFamilies', () => {
  it('creates families after the existing ones (creation order) and updates GC rules', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('b')]);
    const info = await f.db.modifyColumnFamilies(
      name,
      [create('a'), { kind: 'update', family: 'b', gcRule: { kind: 'maxVersions', versions: 3 }, updateGcRule: true }],
      false,
    );
    expect(info.families).toEqual([family('b', { kind: 'maxVersions', versions: 3 }), family('a')]);
    // Without updateGcRule (no gc_rule in the mask) nothing changes; with it and no rule, the rule is cleared.
    await f.db.modifyColumnFamilies(name, [{ kind: 'update', family: 'b', gcRule: undefined, updateGcRule: false }], false);
    expect(f.db.getTable(name).families[0]).toEqual(family('b', { kind: 'maxVersions', versions: 3 }));
    await f.db.modifyColumnFamilies(name, [{ kind: 'update', family: 'b', gcRule: undefined, updateGcRule: true }], false);
    expect(f.db.getTable(name).families[0]).toEqual(family('b'));
  });

  it('applies all modifications or none', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('a')]);
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('new'), create('a')], false))).toBe('AlreadyExists');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('new2'), drop('missing')], false))).toBe('NotFound');
    expect(
      await codeOf(() =>
        f.db.modifyColumnFamilies(
          name,
          [create('new3'), { kind: 'update', family: 'missing', gcRule: undefined, updateGcRule: true }],
          false,
        ),
      ),
    ).toBe('NotFound');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('new4'), create('bad name')], false))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('new5', { kind: 'maxVersions', versions: -1 })], false))).toBe(
      'InvalidArgument',
    );
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [], false))).toBe('InvalidArgument');
    expect(f.db.getTable(name).families.map((x) => x.name)).toEqual(['a']);
  });

  it('limits a table to 100 families', async () => {
    const f = await openDb();
    const name = await createTable(
      f,
      Array.from({ length: 99 }, (_, i) => family(`f${i}`)),
    );
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('x'), create('y')], false))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [create('x')], false))).toBe('none');
    expect(await codeOf(() => f.db.modifyColumnFamilies(name, [drop('x'), create('y')], false))).toBe('none');
  });

  it('dropping a family drops its data; re-creating it does not bring old cells back', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('keep'), family('gone')], { splits: ['m'] });
    await f.db.mutateRows(name, [
      { key: 'a', mutations: [set('keep', 'q', 1000, 'k'), set('gone', 'q', 1000, 'old-a')] },
      { key: 'b', mutations: [set('gone', 'q', 1000, 'old-b')] },
      { key: 'x', mutations: [set('gone', 'q', 1000, 'old-x')] },
    ]);
    await f.db.modifyColumnFamilies(name, [drop('gone')], false);
    expect(await readAll(f, name)).toEqual(['a: keep:q@1=k']);
    await f.db.modifyColumnFamilies(name, [create('gone')], false);
    expect(await readAll(f, name)).toEqual(['a: keep:q@1=k']);
    await f.db.mutateRow(name, 'b', [set('gone', 'q', 2000, 'new-b')]);
    expect(await readAll(f, name)).toEqual(['a: keep:q@1=k', 'b: gone:q@2=new-b']);
    // The re-created family is now last in creation order.
    expect(f.db.getTable(name).families.map((x) => x.name)).toEqual(['keep', 'gone']);
  });

  it('drop and create of one family in a single request also leaves no old cells', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf'), family('other')]);
    await f.db.mutateRow(name, 'r', [set('cf', 'q', 1000, 'old'), set('other', 'q', 1000, 'o')]);
    const info = await f.db.modifyColumnFamilies(name, [drop('cf'), create('cf', { kind: 'maxVersions', versions: 1 })], false);
    expect(info.families).toEqual([family('other'), family('cf', { kind: 'maxVersions', versions: 1 })]);
    expect(await readAll(f, name)).toEqual(['r: other:q@1=o']);
  });

  it('writes racing with a family drop cannot resurrect old cells', async () => {
    const f = await openDb({ engine: createAsyncEngine() });
    const name = await createTable(f, [family('cf')]);
    const writes = Array.from({ length: 20 }, (_, i) => f.db.mutateRow(name, `r${i % 4}`, [set('cf', `q${i}`, 1000, 'x')]));
    const dropped = f.db.modifyColumnFamilies(name, [drop('cf')], false);
    const outcomes = await Promise.allSettled(writes);
    await dropped;
    await f.db.modifyColumnFamilies(name, [create('cf')], false);
    expect(await readAll(f, name)).toEqual([]);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected.every((o) => isTabletopError(o.reason, 'NotFound'))).toBe(true);
  });
});

describe('dropRowRange', () => {
  async function seeded() {
    const f = await openDb();
    const name = await createTable(f, [family('cf')], { splits: ['b', 'user#5'] });
    const keys = ['a', 'b', 'user', 'user#1', 'user#5', 'user#9', 'user$', 'z'];
    await f.db.mutateRows(
      name,
      keys.map((key) => ({ key, mutations: [set('cf', 'q', 1000, key)] })),
    );
    return { f, name };
  }
  const keysOf = (rows: string[]) => rows.map((r) => r.slice(0, r.indexOf(':')));

  it('drops the rows with a prefix across tablets', async () => {
    const { f, name } = await seeded();
    await f.db.dropRowRange(name, { kind: 'prefix', prefix: 'user#' });
    expect(keysOf(await readAll(f, name))).toEqual(['a', 'b', 'user', 'user$', 'z']);
  });

  it('drops a prefix of all-0xff bytes up to the end of the table', async () => {
    const f = await openDb();
    const name = await createTable(f, [family('cf')]);
    await f.db.mutateRows(
      name,
      ['\xfe', '\xff', '\xff\xff', '\xff\xff\x01'].map((key) => ({ key, mutations: [set('cf', 'q', 1000, 'x')] })),
    );
    await f.db.dropRowRange(name, { kind: 'prefix', prefix: '\xff\xff' });
    expect(keysOf(await readAll(f, name))).toEqual(['\xfe', '\xff']);
  });

  it('drops everything', async () => {
    const { f, name } = await seeded();
    await f.db.dropRowRange(name, { kind: 'all' });
    expect(await readAll(f, name)).toEqual([]);
    await f.db.mutateRow(name, 'user#5', [set('cf', 'q', 1000, 'again')]);
    expect(await readAll(f, name)).toEqual(['user#5: cf:q@1=again']);
  });

  it('rejects an empty prefix', async () => {
    const { f, name } = await seeded();
    expect(await codeOf(() => f.db.dropRowRange(name, { kind: 'prefix', prefix: '' }))).toBe('InvalidArgument');
    expect(await readAll(f, name)).toHaveLength(8);
  });
});

describe('consistency tokens', () => {
  it('are valid for the table that issued them and no other', async () => {
    const f = await openDb();
    const t1 = await createTable(f, []);
    const t2 = await createTable(f, []);
    const token = await f.db.generateConsistencyToken(t1);
    const second = await f.db.generateConsistencyToken(t1);
    expect(second).not.toBe(token);
    expect(f.db.checkConsistency(t1, token)).toBe(true);
    expect(f.db.checkConsistency(t1, second)).toBe(true);
    expect(await codeOf(() => f.db.checkConsistency(t2, token))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.checkConsistency(t1, 'garbage'))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.checkConsistency(t1, ''))).toBe('InvalidArgument');
  });

  it('die with their table', async () => {
    const f = await openDb();
    const name = await createTable(f, []);
    const token = await f.db.generateConsistencyToken(name);
    await f.db.deleteTable(name);
    await createTable(f, [], { name });
    expect(await codeOf(() => f.db.checkConsistency(name, token))).toBe('InvalidArgument');
  });
});

describe('stores no table names', () => {
  it('drops an empty one, keeps and reports one with data, and leaves system stores (`_…`) alone', async () => {
    const engine = createMemoryEngine();
    const put = { kind: 'put', family: 'c', qualifier: 'v', timestamp: 0, value: new Uint8Array([1]) } as const;
    await (await engine.openStore(`${SYSTEM_STORE_PREFIX}insight`)).write([{ key: 'c/1', ops: [put] }]);
    await (await engine.openStore('t900.1')).write([{ key: 'r', ops: [put] }]);
    await engine.openStore('t901.1');
    const logger = memoryLogger();
    await openDb({ engine, logger });
    expect([...engine.storeIds()].sort()).toEqual(['_insight', 't900.1']);
    const warned = logger.records.filter((r) => r.fields?.['event'] === 'orphan-store').map((r) => r.fields?.['store']);
    expect(warned).toEqual(['t900.1']);
  });
});
