import * as grpc from '@grpc/grpc-js';
import { type Bigtable, SqlTypes } from '@google-cloud/bigtable';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTableId } from '../harness/names.js';
import { adminCall } from '../harness/raw.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { useTarget } from '../harness/suite.js';

/**
 * Logical views end to end: the official Node client's generated Instance Admin client (reached through
 * `Bigtable#request`, as the handwritten surface has no logical views) creates, reads, lists (paged), updates and
 * deletes them; `instance.prepareStatement` / `executeQuery` read them as tables; a prepared query over a view
 * expires when the view changes, and the client prepares it again. (cbt 1.23 has no logical view commands.)
 */

const ADMIN = 'BigtableInstanceAdminClient' as const;
const PARENT = `projects/${PROJECT}/instances/${INSTANCE}`;

interface LogicalView {
  name: string;
  query: string;
  etag: string;
  deletionProtection: boolean;
}

/** A call of the generated Instance Admin client (a long-running call: the finished operation's result and metadata). */
const admin = <T>(client: Bigtable, method: string, reqOpts: object, gaxOpts?: object): Promise<T[]> =>
  adminCall<T>(client, ADMIN, method, reqOpts, gaxOpts);

describe('logical views through the official Node client', () => {
  const ctx = useTarget('tabletop');
  let tableId: string;

  beforeAll(async () => {
    tableId = uniqueTableId('lv');
    const table = ctx.instance.table(tableId);
    await table.create({ families: ['cf'] });
    await table.insert([
      { key: 'a1', data: { cf: { name: 'ann', n: '1' } } },
      { key: 'a2', data: { cf: { name: 'bob' } } },
      { key: 'b1', data: { cf: { name: 'cy' } } },
    ]);
  });

  it('creates (a done operation with metadata), gets, lists by page, updates by mask with etags, and deletes', async () => {
    const query = `SELECT _key, cf['name'] AS name FROM \`${tableId}\``;
    const [created, metadata] = await admin<LogicalView & { startTime?: object; endTime?: object }>(ctx.client, 'createLogicalView', {
      parent: PARENT,
      logicalViewId: 'people',
      logicalView: { query, deletionProtection: true },
    });
    expect(created).toMatchObject({ name: `${PARENT}/logicalViews/people`, query, deletionProtection: true });
    expect(created!.etag).not.toBe('');
    expect(metadata).toMatchObject({ startTime: expect.anything(), endTime: expect.anything() });
    await expect(
      admin(ctx.client, 'createLogicalView', { parent: PARENT, logicalViewId: 'people', logicalView: { query } }),
    ).rejects.toMatchObject({ code: grpc.status.ALREADY_EXISTS });
    await admin(ctx.client, 'createLogicalView', { parent: PARENT, logicalViewId: 'people2', logicalView: { query: 'SELECT 1 AS one' } });

    const [got] = await admin<LogicalView>(ctx.client, 'getLogicalView', { name: `${PARENT}/logicalViews/people` });
    expect(got).toEqual(created);

    const [all] = await admin<LogicalView[]>(ctx.client, 'listLogicalViews', { parent: PARENT });
    expect(all!.map((v) => v.name)).toEqual([`${PARENT}/logicalViews/people`, `${PARENT}/logicalViews/people2`]);
    const [page1, next] = await admin<LogicalView[] & { pageToken?: string }>(
      ctx.client,
      'listLogicalViews',
      { parent: PARENT, pageSize: 1 },
      { autoPaginate: false },
    );
    expect(page1!.map((v) => v.name)).toEqual([`${PARENT}/logicalViews/people`]);
    const [page2] = await admin<LogicalView[]>(ctx.client, 'listLogicalViews', next as object, { autoPaginate: false });
    expect(page2!.map((v) => v.name)).toEqual([`${PARENT}/logicalViews/people2`]);

    const [updated] = await admin<LogicalView>(ctx.client, 'updateLogicalView', {
      logicalView: { name: created!.name, query: `SELECT cf['name'] AS name FROM \`${tableId}\``, etag: created!.etag },
      updateMask: { paths: ['query'] },
    });
    expect(updated).toMatchObject({ query: `SELECT cf['name'] AS name FROM \`${tableId}\``, deletionProtection: true });
    expect(updated!.etag).not.toBe(created!.etag);
    // A stale etag: ABORTED; no mask: INVALID_ARGUMENT; a query that does not analyze: INVALID_ARGUMENT with its position.
    await expect(
      admin(ctx.client, 'updateLogicalView', {
        logicalView: { name: created!.name, deletionProtection: false, etag: created!.etag },
        updateMask: { paths: ['deletion_protection'] },
      }),
    ).rejects.toMatchObject({ code: grpc.status.ABORTED });
    await expect(admin(ctx.client, 'updateLogicalView', { logicalView: { name: created!.name, query } })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    await expect(
      admin(ctx.client, 'updateLogicalView', {
        logicalView: { name: created!.name, query: `SELECT nope FROM \`${tableId}\`` },
        updateMask: { paths: ['query'] },
      }),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/line 1, column 8: Unrecognized name: nope/),
    });
    await expect(
      admin(ctx.client, 'createLogicalView', {
        parent: PARENT,
        logicalViewId: 'bad',
        logicalView: { query: 'SELECT * FROM missing_table' },
      }),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringMatching(/Table not found: missing_table/) });

    // Protected: FAILED_PRECONDITION until the protection is lifted; then deleted, with the current etag.
    await expect(admin(ctx.client, 'deleteLogicalView', { name: created!.name })).rejects.toMatchObject({
      code: grpc.status.FAILED_PRECONDITION,
    });
    const [unprotected] = await admin<LogicalView>(ctx.client, 'updateLogicalView', {
      logicalView: { name: created!.name, deletionProtection: false },
      updateMask: { paths: ['deletion_protection'] },
    });
    await expect(admin(ctx.client, 'deleteLogicalView', { name: created!.name, etag: updated!.etag })).rejects.toMatchObject({
      code: grpc.status.ABORTED,
    });
    await admin(ctx.client, 'deleteLogicalView', { name: created!.name, etag: unprotected!.etag });
    await admin(ctx.client, 'deleteLogicalView', { name: `${PARENT}/logicalViews/people2` });
    await expect(admin(ctx.client, 'getLogicalView', { name: created!.name })).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('a logical view reads as a table through prepareStatement / executeQuery, with parameters', async () => {
    await admin(ctx.client, 'createLogicalView', {
      parent: PARENT,
      logicalViewId: 'names',
      logicalView: { query: `SELECT _key, SAFE_CONVERT_BYTES_TO_STRING(cf['name']) AS name FROM \`${tableId}\`` },
    });
    const [statement] = await ctx.instance.prepareStatement({
      query: 'SELECT name FROM names WHERE STARTS_WITH(_key, @p) ORDER BY name',
      parameterTypes: { p: SqlTypes.Bytes() },
    });
    const [rows] = await ctx.instance.executeQuery({ preparedStatement: statement, parameters: { p: Buffer.from('a') } });
    expect(rows.map((r) => r.get('name'))).toEqual(['ann', 'bob']);
    const [starStatement] = await ctx.instance.prepareStatement('SELECT * FROM names');
    const [star] = await ctx.instance.executeQuery(starStatement);
    expect(star.map((r) => [Buffer.from(r.get('_key') as Uint8Array).toString(), r.get('name')])).toEqual([
      ['a1', 'ann'],
      ['a2', 'bob'],
      ['b1', 'cy'],
    ]);
  });

  it('a prepared query over a view expires when the view changes: the client prepares it again and reads the new query', async () => {
    const [view] = await admin<LogicalView>(ctx.client, 'createLogicalView', {
      parent: PARENT,
      logicalViewId: 'changing',
      logicalView: { query: `SELECT _key AS k FROM \`${tableId}\`` },
    });
    const [statement] = await ctx.instance.prepareStatement('SELECT * FROM changing');
    const [before] = await ctx.instance.executeQuery(statement);
    expect(before.map((r) => Buffer.from(r.get('k') as Uint8Array).toString())).toEqual(['a1', 'a2', 'b1']);
    await admin(ctx.client, 'updateLogicalView', {
      logicalView: { name: view!.name, query: `SELECT _key AS k, cf['name'] AS name FROM \`${tableId}\` WHERE _key = 'b1'` },
      updateMask: { paths: ['query'] },
    });
    // The server answers FAILED_PRECONDITION (PREPARED_QUERY_EXPIRED); the client prepares again, with the new schema.
    const [after] = await ctx.instance.executeQuery(statement);
    expect(
      after.map((r) => [Buffer.from(r.get('k') as Uint8Array).toString(), Buffer.from(r.get('name') as Uint8Array).toString()]),
    ).toEqual([['b1', 'cy']]);
  });

  it('a view over a deleted table fails NOT_FOUND naming the table', async () => {
    const id = uniqueTableId('lv-gone');
    const t = ctx.instance.table(id);
    await t.create({ families: ['cf'] });
    await admin(ctx.client, 'createLogicalView', {
      parent: PARENT,
      logicalViewId: 'orphan',
      logicalView: { query: `SELECT _key FROM \`${id}\`` },
    });
    await t.delete();
    await expect(ctx.instance.prepareStatement('SELECT * FROM orphan')).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      message: expect.stringContaining(`Table not found: ${id}`),
    });
  });
});
