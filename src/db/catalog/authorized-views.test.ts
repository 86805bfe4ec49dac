import { describe, expect, it } from 'vitest';
import type { SubsetView } from '../../model/authorized-view.js';
import type { Mutation } from '../../model/mutation.js';
import { MemoryFileSystem } from '../../storage/fs/memory-fs.js';
import { openDiskEngine } from '../../storage/lsm/disk-engine.js';
import {
  ALL,
  INSTANCE,
  T0,
  codeOf,
  drain,
  createTable,
  errorOf,
  family,
  openDb,
  readAll,
  set,
  showRow,
  type Fixture,
} from '../testing/db-fixture.js';

const subset = (rowPrefixes: string[], families: Record<string, { q?: string[]; p?: string[] }>): SubsetView => ({
  rowPrefixes,
  familySubsets: Object.entries(families).map(([family, s]) => ({ family, qualifiers: s.q ?? [], qualifierPrefixes: s.p ?? [] })),
});
const T = { ...INSTANCE, table: 't' };
const VIEW = 'projects/p/instances/i/tables/t/authorizedViews/v';
const DENIED = `Cannot mutate from ${VIEW} because the mutation contains cells outside the Authorized View.`;
const ts = T0 / 1000 - ((T0 / 1000) % 1000);

/** Table t (families cf, other) with rows a#1 (cf:in, cf:out, other:x), a#2 (cf:in), b#1 (cf:in); view v: rows a#, cf:in and cf:p* . */
async function fixture(): Promise<Fixture> {
  const f = await openDb();
  await createTable(f, [family('cf'), family('other')], { name: T });
  await f.db.mutateRows(T, [
    { key: 'a#1', mutations: [set('cf', 'in', ts, '1'), set('cf', 'out', ts, '2'), set('other', 'x', ts, '3')] },
    { key: 'a#2', mutations: [set('cf', 'in', ts, '4')] },
    { key: 'b#1', mutations: [set('cf', 'in', ts, '5')] },
  ]);
  await f.db.createAuthorizedView(T, 'v', { subset: subset(['a#'], { cf: { q: ['in'], p: ['p'] } }), deletionProtection: false });
  return f;
}

const viewRows = (f: Fixture, request: Parameters<typeof readAll>[2] = {}) => readAll(f, T, { ...request, view: 'v' });

describe('authorized views: admin', () => {
  it('are created, read, listed in id order, updated by field with etags, and deleted', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: T });
    const created = await f.db.createAuthorizedView(T, 'v2', {
      subset: subset(['b', 'a', 'a'], { cf: { q: ['q'] } }),
      deletionProtection: false,
    });
    expect(created).toEqual({
      table: T,
      id: 'v2',
      subset: { rowPrefixes: ['a', 'b'], familySubsets: [{ family: 'cf', qualifiers: ['q'], qualifierPrefixes: [] }] },
      deletionProtection: false,
      etag: expect.any(String),
      createTimeMillis: T0 / 1000,
    });
    await f.db.createAuthorizedView(T, 'v1', { subset: subset([''], {}), deletionProtection: true });
    expect(f.db.getAuthorizedView(T, 'v2')).toEqual(created);
    expect(f.db.listAuthorizedViews(T).map((x) => x.id)).toEqual(['v1', 'v2']);
    expect(await codeOf(() => f.db.createAuthorizedView(T, 'v2', { subset: subset([''], {}), deletionProtection: false }))).toBe(
      'AlreadyExists',
    );

    const updated = await f.db.updateAuthorizedView(T, 'v2', { subset: subset(['c'], {}) }, { etag: created.etag });
    expect(updated.subset.rowPrefixes).toEqual(['c']);
    expect(updated.etag).not.toBe(created.etag);
    const stale = await errorOf(() => f.db.updateAuthorizedView(T, 'v2', { deletionProtection: true }, { etag: created.etag }));
    expect(stale.code).toBe('Aborted');
    expect(stale.message).toContain('projects/p/instances/i/tables/t/authorizedViews/v2');
    expect(await codeOf(() => f.db.deleteAuthorizedView(T, 'v2', created.etag))).toBe('Aborted');
    await f.db.deleteAuthorizedView(T, 'v2', updated.etag);
    expect(await codeOf(() => f.db.getAuthorizedView(T, 'v2'))).toBe('NotFound');

    // Protected: neither the view, nor its table, nor its instance can be deleted; each message names the view.
    expect(await codeOf(() => f.db.deleteAuthorizedView(T, 'v1'))).toBe('FailedPrecondition');
    const table = await errorOf(() => f.db.deleteTable(T));
    expect(table).toMatchObject({
      code: 'FailedPrecondition',
      message: expect.stringContaining('projects/p/instances/i/tables/t/authorizedViews/v1'),
    });
    const instance = await errorOf(() => f.db.deleteInstance(INSTANCE));
    expect(instance).toMatchObject({ code: 'FailedPrecondition', message: expect.stringContaining('authorizedViews/v1') });
    await f.db.updateAuthorizedView(T, 'v1', { deletionProtection: false });
    await f.db.deleteTable(T);
    // A table of the same name starts without views.
    await createTable(f, [family('cf')], { name: T });
    expect(f.db.listAuthorizedViews(T)).toEqual([]);
  });

  it('refuses bad ids, families the table lacks (updates may ignore the warning), missing tables, and family drops a view needs', async () => {
    const f = await openDb();
    await createTable(f, [family('cf'), family('gone')], { name: T });
    const ok = { subset: subset([''], { cf: { p: [''] } }), deletionProtection: false };
    expect(await codeOf(() => f.db.createAuthorizedView(T, 'bad id', ok))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createAuthorizedView(T, 'x'.repeat(51), ok))).toBe('InvalidArgument');
    expect(await codeOf(() => f.db.createAuthorizedView(T, 'x'.repeat(50), ok))).toBe('none');
    expect(await codeOf(() => f.db.createAuthorizedView({ ...T, table: 'nope' }, 'v', ok))).toBe('NotFound');
    const missing = await errorOf(() => f.db.createAuthorizedView(T, 'v', { ...ok, subset: subset([''], { nope: { p: [''] } }) }));
    expect(missing).toMatchObject({ code: 'FailedPrecondition', message: expect.stringContaining('nope') });
    await f.db.createAuthorizedView(T, 'v', { ...ok, subset: subset([''], { cf: { p: [''] }, gone: { q: ['x'] } }) });
    expect(await codeOf(() => f.db.updateAuthorizedView(T, 'v', { subset: subset([''], { later: { p: [''] } }) }))).toBe(
      'FailedPrecondition',
    );
    await f.db.updateAuthorizedView(
      T,
      'v',
      { subset: subset([''], { cf: { p: [''] }, gone: { q: ['x'] }, later: { p: [''] } }) },
      { ignoreWarnings: true },
    );

    const drop = await errorOf(() => f.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'gone' }], false));
    expect(drop).toMatchObject({ code: 'FailedPrecondition', message: expect.stringContaining(VIEW) });
    await f.db.modifyColumnFamilies(T, [{ kind: 'drop', family: 'gone' }], true);
    expect(f.db.getTable(T).families.map((x) => x.name)).toEqual(['cf']);
  });

  it('hold IAM policies while they exist: NOT_FOUND for a view the table lacks; deleting the view forgets its policy', async () => {
    const f = await openDb();
    await createTable(f, [family('cf')], { name: T });
    const policy = { version: 1, bindings: [{ role: 'roles/bigtable.reader', members: ['user:ann@example.com'] }] };
    expect(await codeOf(() => f.db.setIamPolicy(VIEW, policy))).toBe('NotFound');
    await f.db.createAuthorizedView(T, 'v', { subset: subset([''], {}), deletionProtection: false });
    await f.db.setIamPolicy(VIEW, policy);
    expect(f.db.getIamPolicy(VIEW).bindings).toEqual(policy.bindings);
    await f.db.deleteAuthorizedView(T, 'v');
    expect(await codeOf(() => f.db.getIamPolicy(VIEW))).toBe('NotFound');
    await f.db.createAuthorizedView(T, 'v', { subset: subset([''], {}), deletionProtection: false });
    expect(f.db.getIamPolicy(VIEW).bindings).toEqual([]);
  });

  it('are durable: a reopened database has them; a catalog without views loads', async () => {
    const fs = new MemoryFileSystem();
    const first = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    await createTable(first, [family('cf')], { name: T });
    const view = await first.db.createAuthorizedView(T, 'v', {
      subset: subset(['\x00\xff'], { cf: { q: ['\xfe'] } }),
      deletionProtection: true,
    });
    await first.db.close();
    const second = await openDb({ engine: await openDiskEngine({ fs, dir: 'db' }) });
    expect(second.db.listAuthorizedViews(T)).toEqual([view]);
    await second.db.close();

    const f = await openDb();
    await createTable(f, [family('cf')], { name: T });
    const state = f.db.catalogState();
    expect(state.instances[0]!.tables[0]).not.toHaveProperty('authorizedViews');
    const { createDatabase } = await import('../index.js');
    const old = await createDatabase({ engine: f.engine, catalog: state, config: { gcSweepIntervalMillis: 0 } });
    expect(old.listAuthorizedViews(T)).toEqual([]);
  });
});

describe('authorized views: reads', () => {
  it('see only the rows under the prefixes and the cells in the subsets, forwards and reversed', async () => {
    const f = await fixture();
    expect(await viewRows(f)).toEqual([`a#1: cf:in@${ts / 1000}=1`, `a#2: cf:in@${ts / 1000}=4`]);
    expect(await viewRows(f, { reversed: true })).toEqual([`a#2: cf:in@${ts / 1000}=4`, `a#1: cf:in@${ts / 1000}=1`]);
    // A range partly inside the view is cut to it; keys outside it are not there.
    expect(
      await viewRows(f, { rows: { keys: ['b#1'], ranges: [{ start: { kind: 'closed', key: 'a#2' }, end: { kind: 'unbounded' } }] } }),
    ).toEqual([`a#2: cf:in@${ts / 1000}=4`]);
    expect(await viewRows(f, { limit: 1 })).toEqual([`a#1: cf:in@${ts / 1000}=1`]);
  });

  it('count only the view cells as seen in the request stats', async () => {
    const f = await fixture();
    const reader = f.db.readRows(T, { ...ALL, view: 'v' });
    await drain(reader);
    // a#1 holds three cells, one in the view; a#2 one: the cells outside the view are not counted.
    expect(reader.stats).toEqual({ rowsSeen: 2, cellsSeen: 2, rowsReturned: 2, cellsReturned: 2 });
  });

  it('apply the filter to the view cells only', async () => {
    const f = await fixture();
    // Without the view the first cell of a#1 would be cf:in, the second cf:out: through it there is no second.
    expect(await viewRows(f, { filter: { kind: 'cellsPerRowOffset', offset: 1 } })).toEqual([]);
    expect(await viewRows(f, { filter: { kind: 'familyRegex', pattern: 'other' } })).toEqual([]);
  });

  it('answer NOT_FOUND for a view the table does not have', async () => {
    const f = await fixture();
    expect(await codeOf(() => readAll(f, T, { view: 'nope' }))).toBe('NotFound');
  });

  it('sample the row keys within the view, ending at each prefix range end', async () => {
    const f = await fixture();
    const samples = await f.db.sampleRowKeys(T, 'v');
    expect(samples.map((s) => s.key)).toEqual(['a$']);
    await f.db.updateAuthorizedView(T, 'v', { subset: subset([''], { cf: { p: [''] } }) });
    expect((await f.db.sampleRowKeys(T, 'v')).map((s) => s.key)).toEqual(['']);
  });
});

describe('authorized views: writes', () => {
  const denied = async (fn: () => unknown) => expect(await errorOf(fn)).toEqual({ code: 'PermissionDenied', message: DENIED });

  it('write inside the view, and refuse rows, families and qualifiers outside it', async () => {
    const f = await fixture();
    await f.db.mutateRow(T, 'a#3', [set('cf', 'in', ts, 'x'), set('cf', 'p1', ts, 'y')], 'v');
    expect(await viewRows(f, { rows: { keys: ['a#3'], ranges: [] } })).toEqual([`a#3: cf:in@${ts / 1000}=x cf:p1@${ts / 1000}=y`]);
    await denied(() => f.db.mutateRow(T, 'b#2', [set('cf', 'in', ts, 'x')], 'v'));
    await denied(() => f.db.mutateRow(T, 'a#3', [set('cf', 'out', ts, 'x')], 'v'));
    await denied(() => f.db.mutateRow(T, 'a#3', [set('other', 'in', ts, 'x')], 'v'));
    // Nothing of the refused writes landed.
    expect(await readAll(f, T, { rows: { keys: ['a#3', 'b#2'], ranges: [] } })).toEqual([`a#3: cf:in@${ts / 1000}=x cf:p1@${ts / 1000}=y`]);
  });

  it('give each MutateRows entry its own status, in order', async () => {
    const f = await fixture();
    const results = await f.db.mutateRows(
      T,
      [
        { key: 'a#4', mutations: [set('cf', 'in', ts, '1')] },
        { key: 'z', mutations: [set('cf', 'in', ts, '2')] },
        { key: 'a#2', mutations: [{ kind: 'deleteFromRow' }] },
        { key: 'a#1', mutations: [{ kind: 'deleteFromRow' }] },
        { key: 'a#4', mutations: [set('cf', 'in', ts + 1000, '3')] },
      ],
      'v',
    );
    expect(results.map((r) => r?.code)).toEqual([undefined, 'PermissionDenied', undefined, 'PermissionDenied', undefined]);
    expect(results[1]!.message).toBe(DENIED);
    expect(await readAll(f, T, { rows: { keys: ['a#1', 'a#2', 'a#4', 'z'], ranges: [] } })).toEqual([
      `a#1: cf:in@${ts / 1000}=1 cf:out@${ts / 1000}=2 other:x@${ts / 1000}=3`,
      `a#4: cf:in@${ts / 1000 + 1}=3 cf:in@${ts / 1000}=1`,
    ]);
  });

  it('delete a row or family only when none of its cells the delete would remove is outside the view', async () => {
    const f = await fixture();
    const family: Mutation = { kind: 'deleteFromFamily', family: 'cf' };
    await denied(() => f.db.mutateRow(T, 'a#1', [family], 'v'));
    await denied(() => f.db.mutateRow(T, 'a#1', [{ kind: 'deleteFromFamily', family: 'other' }], 'v'));
    await f.db.mutateRow(T, 'a#2', [family], 'v');
    await f.db.mutateRow(T, 'a#9', [{ kind: 'deleteFromRow' }], 'v'); // no row: nothing outside the view
    await f.db.mutateRow(T, 'a#1', [{ kind: 'deleteFromColumn', family: 'cf', qualifier: 'in', start: 0, end: undefined }], 'v');
    expect(await readAll(f, T)).toEqual([`a#1: cf:out@${ts / 1000}=2 other:x@${ts / 1000}=3`, `b#1: cf:in@${ts / 1000}=5`]);
  });

  it('CheckAndMutateRow: the predicate sees the view cells; both branches and the key must be in the view', async () => {
    const f = await fixture();
    // a#1 holds one view cell: an offset of 1 leaves nothing, so the false branch runs.
    const matched = await f.db.checkAndMutateRow(T, 'a#1', { kind: 'cellsPerRowOffset', offset: 1 }, [], [set('cf', 'p2', ts, 'f')], 'v');
    expect(matched).toBe(false);
    expect(await viewRows(f, { rows: { keys: ['a#1'], ranges: [] } })).toEqual([`a#1: cf:in@${ts / 1000}=1 cf:p2@${ts / 1000}=f`]);
    await denied(() => f.db.checkAndMutateRow(T, 'b#1', undefined, [{ kind: 'deleteFromRow' }], [], 'v'));
    await denied(() => f.db.checkAndMutateRow(T, 'a#1', undefined, [set('cf', 'in', ts, 'ok')], [set('cf', 'out', ts, 'no')], 'v'));
    // The branch that runs deletes the row, which holds cells outside the view.
    await denied(() => f.db.checkAndMutateRow(T, 'a#1', undefined, [{ kind: 'deleteFromRow' }], [], 'v'));
  });

  it('ReadModifyWriteRow: columns in the view only, and the answer holds only them', async () => {
    const f = await fixture();
    const row = await f.db.readModifyWriteRow(
      T,
      'a#1',
      [{ kind: 'append', family: 'cf', qualifier: 'in', value: new Uint8Array([0x21]) }],
      'v',
    );
    expect(showRow(row)).toMatch(/^a#1: cf:in@\d+=1!$/);
    await denied(() =>
      f.db.readModifyWriteRow(T, 'a#1', [{ kind: 'append', family: 'cf', qualifier: 'out', value: new Uint8Array(1) }], 'v'),
    );
    await denied(() => f.db.readModifyWriteRow(T, 'b#1', [{ kind: 'increment', family: 'cf', qualifier: 'in', amount: 1n }], 'v'));
  });
});
