import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loaderMethod } from '../testing/loader-codecs.js';
import { unaryCall, unaryError } from '../testing/raw-client.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/** The backup RPCs on the wire, through a raw grpc-js client: operations, responses, errors. */

const ADMIN = 'google.bigtable.admin.v2.BigtableTableAdmin';
const INSTANCE = 'projects/p/instances/i';
const TABLE = `${INSTANCE}/tables/src`;
const TYPE = 'type.googleapis.com/google.bigtable.admin.v2.';
const HOUR = 3600;
let ts: TestServer;
let cluster: string;

const decodeAny = (method: string, any: { type_url: string; value: Buffer }) =>
  loaderMethod(ADMIN, method).responseDeserialize(any.value) as any;
const inHours = (h: number) => ({ seconds: String(Math.floor(Date.now() / 1000) + h * HOUR) });

beforeAll(async () => {
  ts = await startTestServer();
  await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
    parent: INSTANCE,
    tableId: 'src',
    table: { columnFamilies: { cf: { gcRule: { maxNumVersions: 2 } } } },
  });
  await unaryCall(ts.clients.data, 'MutateRow', {
    tableName: TABLE,
    rowKey: Buffer.from('r1'),
    mutations: [{ setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.from('v') } }],
  });
  const { clusters } = await unaryCall(ts.clients.instanceAdmin, 'ListClusters', { parent: INSTANCE });
  cluster = clusters[0].name;
});

afterAll(async () => {
  await ts.stop();
  expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
});

describe('backups on the wire', () => {
  it('CreateBackup answers a done operation with CreateBackupMetadata and the Backup, which GetOperation returns', async () => {
    const expire = inHours(12);
    const op = await unaryCall(ts.clients.tableAdmin, 'CreateBackup', {
      parent: cluster,
      backupId: 'b1',
      backup: { sourceTable: TABLE, expireTime: expire },
    });
    expect(op).toMatchObject({ name: `${cluster}/backups/b1/operations/${op.name.split('/').pop()}`, done: true });
    expect(op.metadata.type_url).toBe(`${TYPE}CreateBackupMetadata`);
    expect(op.response.type_url).toBe(`${TYPE}Backup`);
    const backup = decodeAny('GetBackup', op.response);
    expect(backup).toMatchObject({
      name: `${cluster}/backups/b1`,
      sourceTable: TABLE,
      state: 'READY',
      backupType: 'STANDARD',
      expireTime: { seconds: expire.seconds },
      encryptionInfo: { encryptionType: 'GOOGLE_DEFAULT_ENCRYPTION' },
    });
    expect(Number(backup.sizeBytes)).toBeGreaterThan(0);
    expect(await unaryCall(ts.clients.operations, 'GetOperation', { name: op.name })).toEqual(op);
    expect(await unaryCall(ts.clients.tableAdmin, 'GetBackup', { name: `${cluster}/backups/b1` })).toMatchObject({ state: 'READY' });
  });

  it('RestoreTable answers RestoreTableMetadata and a Table with restore_info; GetTable shows it too', async () => {
    const op = await unaryCall(ts.clients.tableAdmin, 'RestoreTable', {
      parent: INSTANCE,
      tableId: 'copy',
      backup: `${cluster}/backups/b1`,
    });
    expect(op.metadata.type_url).toBe(`${TYPE}RestoreTableMetadata`);
    const table = decodeAny('GetTable', op.response);
    expect(table.name).toBe(`${INSTANCE}/tables/copy`);
    expect(table.restoreInfo).toMatchObject({ sourceType: 'BACKUP', backupInfo: { backup: 'b1', sourceTable: TABLE } });
    const got = await unaryCall(ts.clients.tableAdmin, 'GetTable', { name: `${INSTANCE}/tables/copy`, view: 'SCHEMA_VIEW' });
    expect(got.restoreInfo.backupInfo.backup).toBe('b1');
    expect(got.columnFamilies.cf.gcRule).toMatchObject({ maxNumVersions: 2 });
    expect(
      (await unaryError(ts.clients.tableAdmin, 'RestoreTable', { parent: INSTANCE, tableId: 'copy', backup: `${cluster}/backups/b1` }))
        .code,
    ).toBe(status.ALREADY_EXISTS);
  });

  it('CopyBackup answers CopyBackupMetadata naming the copy and its source', async () => {
    const op = await unaryCall(ts.clients.tableAdmin, 'CopyBackup', {
      parent: cluster,
      backupId: 'b1-copy',
      sourceBackup: `${cluster}/backups/b1`,
      expireTime: inHours(24),
    });
    expect(op.metadata.type_url).toBe(`${TYPE}CopyBackupMetadata`);
    expect(decodeAny('GetBackup', op.response)).toMatchObject({
      name: `${cluster}/backups/b1-copy`,
      sourceBackup: `${cluster}/backups/b1`,
    });
    const e = await unaryError(ts.clients.tableAdmin, 'CopyBackup', {
      parent: cluster,
      backupId: 'again',
      sourceBackup: `${cluster}/backups/b1-copy`,
      expireTime: inHours(24),
    });
    expect(e.code).toBe(status.FAILED_PRECONDITION);
  });

  it('refuses bad requests with the service codes', async () => {
    const create = (backup: object, backupId = 'x') =>
      unaryError(ts.clients.tableAdmin, 'CreateBackup', { parent: cluster, backupId, backup });
    expect((await create({ sourceTable: TABLE })).code).toBe(status.INVALID_ARGUMENT);
    expect((await create({ expireTime: inHours(12) })).code).toBe(status.INVALID_ARGUMENT);
    expect((await create({ sourceTable: TABLE, expireTime: inHours(1) })).code).toBe(status.INVALID_ARGUMENT);
    expect((await create({ sourceTable: `${INSTANCE}/tables/missing`, expireTime: inHours(12) })).code).toBe(status.NOT_FOUND);
    expect((await create({ sourceTable: 'projects/p/instances/other/tables/src', expireTime: inHours(12) })).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect((await create({ sourceTable: TABLE, expireTime: inHours(12) }, 'b1')).code).toBe(status.ALREADY_EXISTS);
    const update = (req: object) => unaryError(ts.clients.tableAdmin, 'UpdateBackup', req);
    expect((await update({ backup: { name: `${cluster}/backups/b1`, expireTime: inHours(20) } })).code).toBe(status.INVALID_ARGUMENT);
    expect(
      (await update({ backup: { name: `${cluster}/backups/b1`, expireTime: inHours(20) }, updateMask: { paths: ['size_bytes'] } })).code,
    ).toBe(status.INVALID_ARGUMENT);
    expect(
      (await update({ backup: { name: `${cluster}/backups/none`, expireTime: inHours(20) }, updateMask: { paths: ['expire_time'] } })).code,
    ).toBe(status.NOT_FOUND);
    expect((await unaryError(ts.clients.tableAdmin, 'GetBackup', { name: `${cluster}/backups` })).code).toBe(status.INVALID_ARGUMENT);
    expect((await unaryError(ts.clients.tableAdmin, 'ListBackups', { parent: INSTANCE })).code).toBe(status.INVALID_ARGUMENT);
    expect((await unaryError(ts.clients.tableAdmin, 'ListBackups', { parent: `${INSTANCE}/clusters/nope` })).code).toBe(status.NOT_FOUND);
    expect((await unaryError(ts.clients.tableAdmin, 'ListBackups', { parent: `${INSTANCE}/clusters/-`, pageToken: 'zz' })).code).toBe(
      status.INVALID_ARGUMENT,
    );
  });

  it('UpdateBackup changes the expire time; ListBackups pages; DeleteBackup removes', async () => {
    const expire = inHours(30);
    const updated = await unaryCall(ts.clients.tableAdmin, 'UpdateBackup', {
      backup: { name: `${cluster}/backups/b1`, expireTime: expire },
      updateMask: { paths: ['expire_time'] },
    });
    expect(updated.expireTime.seconds).toBe(expire.seconds);
    const first = await unaryCall(ts.clients.tableAdmin, 'ListBackups', { parent: `${INSTANCE}/clusters/-`, pageSize: 1, orderBy: 'name' });
    expect(first.backups.map((b: { name: string }) => b.name)).toEqual([`${cluster}/backups/b1`]);
    const second = await unaryCall(ts.clients.tableAdmin, 'ListBackups', {
      parent: `${INSTANCE}/clusters/-`,
      pageSize: 1,
      orderBy: 'name',
      pageToken: first.nextPageToken,
    });
    expect(second).toEqual({ backups: [expect.objectContaining({ name: `${cluster}/backups/b1-copy` })], nextPageToken: '' });
    await unaryCall(ts.clients.tableAdmin, 'DeleteBackup', { name: `${cluster}/backups/b1-copy` });
    expect((await unaryError(ts.clients.tableAdmin, 'GetBackup', { name: `${cluster}/backups/b1-copy` })).code).toBe(status.NOT_FOUND);
  });
});
