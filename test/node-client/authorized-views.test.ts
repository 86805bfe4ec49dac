import * as grpc from '@grpc/grpc-js';
import type { Bigtable } from '@google-cloud/bigtable';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTableId } from '../harness/names.js';
import { adminCall } from '../harness/raw.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { useTarget } from '../harness/suite.js';

/**
 * Authorized views end to end through the official Node client: `instance.view(table, view)` for the data calls
 * (getRows, createReadStream, mutate / insert, sampleRowKeys, filter = CheckAndMutateRow, createRules and
 * increment = ReadModifyWriteRow), and the generated Table Admin client (reached through `Bigtable#request`, as
 * the handwritten surface has no view admin) for Create / Get / List / Update / Delete and the operations.
 * The scenario follows the client's own system tests (system-test/bigtable.ts, "AuthorizedViews"): one row
 * in the view with a column in it and one outside it, another row outside the view.
 */

const ADMIN = 'BigtableTableAdminClient' as const;
const PARENT = `projects/${PROJECT}/instances/${INSTANCE}`;

interface PView {
  name: string;
  etag?: string;
  deletionProtection?: boolean;
  subsetView?: { rowPrefixes: Buffer[]; familySubsets: Record<string, { qualifiers: Buffer[]; qualifierPrefixes: Buffer[] }> };
}

const admin = <T>(client: Bigtable, method: string, reqOpts: object, gaxOpts?: object): Promise<T[]> =>
  adminCall<T>(client, ADMIN, method, reqOpts, gaxOpts);

const cell = (value: string | number) => ({ value, labels: [], timestamp: '77000' });

describe('authorized views through the official Node client', () => {
  const ctx = useTarget('tabletop');
  const tableId = uniqueTableId('av');
  const tableName = `${PARENT}/tables/${tableId}`;
  const viewName = `${tableName}/authorizedViews/readers`;
  const denied = `Cannot mutate from ${viewName} because the mutation contains cells outside the Authorized View.`;
  const view = () => ctx.instance.view(tableId, 'readers');
  const table = () => ctx.instance.table(tableId);

  /** The table as the system tests leave it after each test: the view's writes are undone by the tests that make them. */
  async function reset(): Promise<void> {
    await table().deleteRows('row');
    await table().insert([{ key: 'row', data: { cf: { in: cell('in-value'), out: cell('out-value') } } }]);
  }

  beforeAll(async () => {
    await table().create({ families: ['cf'] });
    await table().insert([
      { key: 'row', data: { cf: { in: cell('in-value'), out: cell('out-value') } } },
      { key: 'other', data: { cf: { in: cell('in-value') } } },
    ]);
    // The etag a create carries is ignored, as the service does (the client's system test sends one).
    await admin(ctx.client, 'createAuthorizedView', {
      parent: tableName,
      authorizedViewId: 'readers',
      authorizedView: {
        etag: 'ignored',
        deletionProtection: false,
        subsetView: { rowPrefixes: [Buffer.from('row')], familySubsets: { cf: { qualifiers: [Buffer.from('in')] } } },
      },
    });
  });

  it('reads only the rows and columns in the view (getRows, createReadStream), status OK', async () => {
    const [rows] = await view().getRows();
    expect(rows.map((r) => [r.id, r.data])).toEqual([['row', { cf: { in: [cell('in-value')] } }]]);
    const streamed: string[] = [];
    await new Promise<void>((resolve, reject) =>
      view()
        .createReadStream()
        .on('data', (r: { id: string }) => streamed.push(r.id))
        .on('error', reject)
        .on('end', resolve),
    );
    expect(streamed).toEqual(['row']);
    // The table itself still has everything.
    const [all] = await table().getRows();
    expect(all.map((r) => r.id)).toEqual(['other', 'row']);
  });

  it('refuses writes to a row or a column outside the view with PERMISSION_DENIED and the service message', async () => {
    for (const entry of [
      { key: 'other', data: { cf: { in: 'new' } } },
      { key: 'row', data: { cf: { out: 'new' } } },
    ]) {
      const e = (await view()
        .insert(entry)
        .then(
          () => undefined,
          (err: unknown) => err,
        )) as { message: string; errors: { code: number; message: string }[] };
      expect(e.message).toBe(denied);
      expect(e.errors.map((x) => x.code)).toEqual([grpc.status.PERMISSION_DENIED]);
    }
    const [rows] = await table().getRows();
    expect(rows.map((r) => [r.id, r.data])).toEqual([
      ['other', { cf: { in: [cell('in-value')] } }],
      ['row', { cf: { in: [cell('in-value')], out: [cell('out-value')] } }],
    ]);
  });

  it('writes in the view, with a status per MutateRows entry', async () => {
    const e = (await view()
      .insert([
        { key: 'row', data: { cf: { in: cell('new-value') } } },
        { key: 'other', data: { cf: { in: cell('nope') } } },
      ])
      .then(
        () => undefined,
        (err: unknown) => err,
      )) as { errors: { code: number; message: string; entry: { key: string } }[] };
    expect(e.errors.map((x) => [Buffer.from(x.entry.key).toString(), x.code, x.message])).toEqual([
      ['other', grpc.status.PERMISSION_DENIED, denied],
    ]);
    const [rows] = await view().getRows();
    expect(rows.map((r) => r.data)).toEqual([{ cf: { in: [cell('new-value')] } }]);
    await reset();
  });

  it('samples row keys within the view: one sample, at the end of its prefix', async () => {
    const [samples] = await view().sampleRowKeys();
    expect(samples.map((s) => Buffer.from(s.key).toString())).toEqual(['rox']);
  });

  it('CheckAndMutateRow: a row outside the view fails; the predicate sees only the view cells', async () => {
    await expect(
      view().filter({ rowId: 'some-row-key', filter: { column: 'in' } }, { onMatch: [{ key: 'row', method: 'delete' }] }),
    ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED, details: denied });
    // Two versions of cf:in: an offset of one cell leaves one (the view has two cells of the row), so it matches.
    await table().insert([{ key: 'row', data: { cf: { in: [cell('in-value'), { value: 'older', labels: [], timestamp: '66000' }] } } }]);
    const [matched] = await view().filter(
      { rowId: 'row', filter: { row: { cellOffset: 2 } } },
      { onMatch: [{ method: 'delete', data: ['cf:in'] }] },
    );
    // With the column outside the view the row has three cells: through the view, two, and an offset of 2 leaves none.
    expect(matched).toBe(false);
    const [deleted] = await view().filter(
      { rowId: 'row', filter: { row: { cellOffset: 1 } } },
      { onMatch: [{ method: 'delete', data: ['cf:in'] }] },
    );
    expect(deleted).toBe(true);
    const [rows] = await table().getRows({ keys: ['row'] });
    expect(rows[0]!.data).toEqual({ cf: { out: [cell('out-value')] } });
    // Deleting the whole row would remove cf:out, outside the view.
    await expect(view().filter({ rowId: 'row', filter: { column: 'out' } }, { onNoMatch: [{ method: 'delete' }] })).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    await reset();
  });

  it('ReadModifyWriteRow: append and increment in the view; a column outside it fails', async () => {
    await view().createRules({ rowId: 'row', rules: { column: 'cf:in', append: '-appended' } });
    const [rows] = await view().getRows();
    expect(rows[0]!.data.cf.in[0].value).toBe('in-value-appended');
    await table().deleteRows('row');
    await table().insert([{ key: 'row', data: { cf: { in: cell(41), out: cell('out-value') } } }]);
    const [value] = await view().increment({ rowId: 'row', column: 'cf:in' }, 1);
    expect(value).toBe(42);
    await expect(view().increment({ rowId: 'row', column: 'cf:out' }, 1)).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
      details: denied,
    });
    await reset();
  });

  it('a view the table does not have: NOT_FOUND', async () => {
    await expect(ctx.instance.view(tableId, 'nope').getRows()).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('admin: Create and Update are done operations that GetOperation answers; Get, List (paged), Update by mask with etags, Delete', async () => {
    const subsetView = {
      rowPrefixes: [Buffer.from('a'), Buffer.from('')],
      familySubsets: { cf: { qualifierPrefixes: [Buffer.from('')] } },
    };
    const [created, metadata, operation] = await admin<PView & { requestTime?: object }>(ctx.client, 'createAuthorizedView', {
      parent: tableName,
      authorizedViewId: 'all',
      authorizedView: { subsetView, deletionProtection: true },
    });
    expect(created).toMatchObject({ name: `${tableName}/authorizedViews/all`, deletionProtection: true });
    expect(created!.subsetView!.rowPrefixes.map(String)).toEqual(['', 'a']);
    expect(metadata).toMatchObject({ originalRequest: { parent: tableName, authorizedViewId: 'all' }, requestTime: expect.anything() });
    // GetOperation, through the generated client's own poll of the operation.
    const gapic = ctx.client.api[ADMIN] as unknown as {
      checkCreateAuthorizedViewProgress(name: string): Promise<{ done: boolean; result: PView }>;
    };
    const polled = await gapic.checkCreateAuthorizedViewProgress((operation as { name: string }).name);
    expect(polled.done).toBe(true);
    expect(polled.result.name).toBe(created!.name);

    const [basic] = await admin<PView>(ctx.client, 'getAuthorizedView', { name: created!.name });
    expect(basic).toMatchObject({ name: created!.name, etag: created!.etag, deletionProtection: true });
    expect(basic!.subsetView ?? undefined).toBeUndefined();
    const [full] = await admin<PView>(ctx.client, 'getAuthorizedView', { name: created!.name, view: 'FULL' });
    expect(full!.subsetView!.familySubsets.cf!.qualifierPrefixes.map(String)).toEqual(['']);
    const [nameOnly] = await admin<PView>(ctx.client, 'getAuthorizedView', { name: created!.name, view: 'NAME_ONLY' });
    expect(nameOnly).toMatchObject({ name: created!.name, etag: '' });

    const [listed] = await admin<PView[]>(ctx.client, 'listAuthorizedViews', { parent: tableName });
    expect(listed!.map((v) => [v.name, v.etag])).toEqual([
      [created!.name, ''],
      [viewName, ''],
    ]);
    const [page1, next] = await admin<PView[]>(
      ctx.client,
      'listAuthorizedViews',
      { parent: tableName, pageSize: 1 },
      { autoPaginate: false },
    );
    expect(page1!.map((v) => v.name)).toEqual([created!.name]);
    const [page2] = await admin<PView[]>(ctx.client, 'listAuthorizedViews', next as object, { autoPaginate: false });
    expect(page2!.map((v) => v.name)).toEqual([viewName]);

    // Protected: the view, its table and its instance cannot be deleted, and the message names the view.
    await expect(admin(ctx.client, 'deleteAuthorizedView', { name: created!.name })).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    });
    await expect(table().delete()).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringContaining(created!.name),
    });
    await expect(ctx.instance.delete()).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
      details: expect.stringContaining(created!.name),
    });

    const [updated, updateMetadata] = await admin<PView>(ctx.client, 'updateAuthorizedView', {
      authorizedView: { name: created!.name, deletionProtection: false, etag: created!.etag },
      updateMask: { paths: ['deletion_protection'] },
    });
    expect(updated).toMatchObject({ deletionProtection: false });
    expect(updated!.etag).not.toBe(created!.etag);
    expect(updated!.subsetView!.rowPrefixes.map(String)).toEqual(['', 'a']);
    expect(updateMetadata).toMatchObject({ originalRequest: { authorizedView: { name: created!.name } } });
    await expect(
      admin(ctx.client, 'updateAuthorizedView', {
        authorizedView: { name: created!.name, deletionProtection: true, etag: created!.etag },
        updateMask: { paths: ['deletion_protection'] },
      }),
    ).rejects.toMatchObject({ code: grpc.status.ABORTED });
    // `*` replaces every field: the subset given, and deletion_protection unset (false).
    const [replaced] = await admin<PView>(ctx.client, 'updateAuthorizedView', {
      authorizedView: { name: created!.name, subsetView: { rowPrefixes: [Buffer.from('z')] } },
      updateMask: { paths: ['*'] },
    });
    expect(replaced!.subsetView!.rowPrefixes.map(String)).toEqual(['z']);
    expect(replaced!.subsetView!.familySubsets).toEqual({});
    // A family the table lacks: refused unless ignore_warnings.
    const missing = {
      name: created!.name,
      subsetView: { rowPrefixes: [Buffer.from('z')], familySubsets: { later: { qualifierPrefixes: [Buffer.from('')] } } },
    };
    await expect(
      admin(ctx.client, 'updateAuthorizedView', { authorizedView: missing, updateMask: { paths: ['subset_view'] } }),
    ).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    await admin(ctx.client, 'updateAuthorizedView', {
      authorizedView: missing,
      updateMask: { paths: ['subset_view'] },
      ignoreWarnings: true,
    });

    await expect(admin(ctx.client, 'deleteAuthorizedView', { name: created!.name, etag: updated!.etag })).rejects.toMatchObject({
      code: grpc.status.ABORTED,
    });
    await admin(ctx.client, 'deleteAuthorizedView', { name: created!.name });
    await expect(admin(ctx.client, 'getAuthorizedView', { name: created!.name })).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(
      admin(ctx.client, 'createAuthorizedView', {
        parent: tableName,
        authorizedViewId: 'bad',
        authorizedView: { deletionProtection: false },
      }),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  });

  it('deleting the table deletes its views', async () => {
    const id = uniqueTableId('av-gone');
    const t = ctx.instance.table(id);
    await t.create({ families: ['cf'] });
    const parent = `${PARENT}/tables/${id}`;
    await admin(ctx.client, 'createAuthorizedView', {
      parent,
      authorizedViewId: 'v',
      authorizedView: { subsetView: { rowPrefixes: [Buffer.from('')] } },
    });
    await t.delete();
    await t.create({ families: ['cf'] });
    const [views] = await admin<PView[]>(ctx.client, 'listAuthorizedViews', { parent });
    expect(views).toEqual([]);
  });
});
