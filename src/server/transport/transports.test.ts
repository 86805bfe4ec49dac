import { createHash } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../db/index.js';
import { createSqlEngine } from '../../sql/index.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { methodTable } from '../grpc-server.js';
import { memoryLogger } from '../../testing/memory-logger.js';
import type { Method } from '../method-table.js';
import { Metrics } from '../metrics.js';
import { DEFAULT_SERVER_TUNING } from '../server-config.js';
import { featuresMetadata, streamCall, unaryCall, unaryError } from '../testing/raw-client.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';

/**
 * One conversation with a whole tabletop server, run on both transports
 * (ServerTuning.transport 'h2' and 'grpc-js'): every answer, error status and
 * message boundary must be the same. (The rest of src/server's tests run on
 * the default transport, h2.)
 */

const INSTANCE = 'projects/p/instances/i';
const TABLE = `${INSTANCE}/tables/t`;
const b = (s: string): Buffer => Buffer.from(s, 'latin1');

async function conversation(ts: TestServer): Promise<unknown[]> {
  const { data, tableAdmin } = ts.clients;
  const out: unknown[] = [];
  // The instance does not exist until a table is created in it.
  out.push(await unaryError(data, 'PingAndWarm', { name: INSTANCE }));
  out.push(await unaryError(data, 'PingAndWarm', { name: 'not a name' }));
  out.push((await unaryCall(tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 't', table: { columnFamilies: { cf: {} } } })).name);
  out.push(await unaryError(tableAdmin, 'CreateTable', { parent: INSTANCE, tableId: 't', table: { columnFamilies: { cf: {} } } }));
  const entries = Array.from({ length: 50 }, (_, i) => ({
    rowKey: b(`row${String(i).padStart(3, '0')}`),
    mutations: [{ setCell: { familyName: i === 7 ? 'nope' : 'cf', columnQualifier: b('q'), timestampMicros: '1000', value: b(`v${i}`) } }],
  }));
  out.push(await streamCall(data, 'MutateRows', { tableName: TABLE, entries }));
  out.push(
    await unaryCall(data, 'MutateRow', {
      tableName: TABLE,
      rowKey: b('single'),
      mutations: [
        { setCell: { familyName: 'cf', columnQualifier: b('q'), timestampMicros: '2000', value: Buffer.alloc(3 * 1024 * 1024, 'x') } },
      ],
    }),
  );
  out.push(await unaryCall(data, 'CheckAndMutateRow', { tableName: TABLE, rowKey: b('row001'), trueMutations: [{ deleteFromRow: {} }] }));
  out.push(
    await unaryCall(data, 'ReadModifyWriteRow', {
      tableName: TABLE,
      rowKey: b('counter'),
      rules: [{ familyName: 'cf', columnQualifier: b('n'), incrementAmount: '5' }],
    }).then((r: { row: { families: { columns: { cells: { value: Buffer }[] }[] }[] } }) => r.row.families[0]!.columns[0]!.cells[0]!.value),
  );
  // Message boundaries: a 3 MiB value is split into 1 MiB chunks, rows never cross messages.
  // (Reads skip the row "counter", whose timestamp is the server's clock.)
  const rows = { rowRanges: [{ startKeyClosed: b('row'), endKeyOpen: b('t') }] };
  out.push(await streamCall(data, 'ReadRows', { tableName: TABLE, rows, rowsLimit: '40' }));
  out.push(await streamCall(data, 'ReadRows', { tableName: TABLE, rows, reversed: true }));
  out.push(
    await streamCall(
      data,
      'ReadRows',
      { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: b('row04') }] }, reversed: true },
      featuresMetadata({ reverseScans: true }),
    ),
  );
  out.push(await streamCall(data, 'ReadRows', { tableName: `${INSTANCE}/tables/missing` }));
  out.push(await streamCall(data, 'SampleRowKeys', { tableName: TABLE }));
  out.push(await streamCall(data, 'ReadChangeStream', { tableName: TABLE }));
  out.push(await unaryError(tableAdmin, 'CreateBackup', { parent: `${INSTANCE}/clusters/c`, backupId: 'b' }));
  out.push(await unaryCall(data, 'PingAndWarm', { name: INSTANCE }));
  // A stream's OK status: grpc-js sends grpc-message "OK", tabletop's transport (like grpc-go) none.
  return out.map((o) => ((o as { status?: { code: number } }).status?.code === 0 ? { ...(o as object), status: { code: 0 } } : o));
}

/** The value with every Buffer replaced by its length and hash (deep equality over megabytes is slow). */
function digest(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return `${v.length} bytes, sha1 ${createHash('sha1').update(v).digest('hex')}`;
  if (Array.isArray(v)) return v.map(digest);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, digest(x)]));
  return v;
}

/** The methods of the server's table that tabletop does not implement. */
async function notImplemented(): Promise<Method[]> {
  const db = await createDatabase({ engine: createMemoryEngine() });
  try {
    return methodTable({
      db,
      logger: memoryLogger(),
      metrics: new Metrics(),
      tuning: DEFAULT_SERVER_TUNING,
      sql: createSqlEngine(db),
    }).methods.filter((m) => m.handler.kind === 'reject');
  } finally {
    await db.close();
  }
}

/** Calls a method of any shape with one empty request message; resolves with the status. */
function callAnyShape(address: string, m: Method): Promise<{ code: number; details: string }> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const id = (b: Buffer): Buffer => b;
  const options = { deadline: Date.now() + 20_000 };
  const empty = Buffer.alloc(0);
  return new Promise<{ code: number; details: string }>((resolve) => {
    const done = (s: { code: number; details: string }) => resolve({ code: s.code, details: s.details });
    if (m.shape === 'unary') {
      client.makeUnaryRequest(m.path, id, id, empty, new grpc.Metadata(), options, (err) => done(err ?? { code: 0, details: '' }));
      return;
    }
    const call =
      m.shape === 'serverStream'
        ? client.makeServerStreamRequest(m.path, id, id, empty, new grpc.Metadata(), options)
        : m.shape === 'bidi'
          ? client.makeBidiStreamRequest(m.path, id, id, new grpc.Metadata(), options)
          : client.makeClientStreamRequest(m.path, id, id, new grpc.Metadata(), options, () => {});
    call.on('data', () => {});
    call.on('error', () => {});
    call.on('status', done);
    if ('write' in call) {
      call.write(empty);
      call.end();
    }
  }).finally(() => client.close());
}

describe('both transports', () => {
  const servers = new Map<string, TestServer>();
  beforeAll(async () => {
    for (const transport of ['h2', 'grpc-js'] as const) servers.set(transport, await startTestServer({ tuning: { transport } }));
  });
  afterAll(async () => {
    for (const ts of servers.values()) await ts.stop();
  });

  it('give the same answers, statuses and message boundaries', async () => {
    const h2 = digest(await conversation(servers.get('h2')!)) as unknown[];
    const grpcJs = digest(await conversation(servers.get('grpc-js')!));
    expect(h2).toEqual(grpcJs);
    // And the answers are the expected ones (spot checks; the services' own tests check the rest).
    expect(h2[0]).toMatchObject({ code: grpc.status.NOT_FOUND });
    expect(h2[h2.length - 1]).toEqual({});
    expect(h2[1]).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect(h2[3]).toMatchObject({ code: grpc.status.ALREADY_EXISTS });
    const mutateRows = h2[4] as { status: { code: number }; messages: { entries: { status: { code?: number } }[] }[] };
    expect(mutateRows.status.code).toBe(0);
    expect(mutateRows.messages.flatMap((m) => m.entries).filter((e) => (e.status.code ?? 0) !== 0)).toHaveLength(1);
    expect(h2[7]).toEqual(digest(Buffer.from([0, 0, 0, 0, 0, 0, 0, 5])));
    const reversedWithoutFlag = h2[9] as { status: { code: number } };
    expect(reversedWithoutFlag.status.code).toBe(grpc.status.UNIMPLEMENTED);
    const missing = h2[11] as { status: { code: number } };
    expect(missing.status.code).toBe(grpc.status.NOT_FOUND);
    expect((h2[13] as { status: { code: number } }).status.code).toBe(grpc.status.UNIMPLEMENTED);
    for (const ts of servers.values()) expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('answer every method the protos define but tabletop does not implement UNIMPLEMENTED, naming its feature', async () => {
    const methods = await notImplemented();
    expect(methods.length).toBeGreaterThan(15);
    const answers = new Map<string, { code: number; details: string }[]>();
    for (const [transport, ts] of servers)
      answers.set(transport, await Promise.all(methods.map((m) => callAnyShape(ts.server.address, m))));
    expect(answers.get('h2')).toEqual(answers.get('grpc-js'));
    const byName = new Map(methods.map((m, i) => [m.name, answers.get('h2')![i]!]));
    for (const m of methods)
      expect([m.path, byName.get(m.name)]).toEqual([
        m.path,
        {
          code: grpc.status.UNIMPLEMENTED,
          details: expect.stringMatching(new RegExp(`^${m.name} \\(.+\\) is not implemented by tabletop yet$`)),
        },
      ]);
    expect(byName.has('ExecuteQuery')).toBe(false);
    expect(byName.get('ReadChangeStream')?.details).toBe('ReadChangeStream (change streams) is not implemented by tabletop yet');
    expect(byName.get('OpenTable')?.details).toBe('OpenTable (the session API) is not implemented by tabletop yet');
    expect(byName.has('CreateBackup')).toBe(false);
    expect(byName.has('CreateLogicalView')).toBe(false);
    expect(byName.has('CreateMaterializedView')).toBe(false);
    expect(byName.get('OpenMaterializedView')?.details).toBe('OpenMaterializedView (the session API) is not implemented by tabletop yet');
    for (const ts of servers.values()) expect(ts.log.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('honour a deadline that has passed (DEADLINE_EXCEEDED)', async () => {
    for (const ts of servers.values()) {
      const err = await new Promise<grpc.ServiceError | null>((resolve) =>
        ts.clients.data['PingAndWarm']!.call(
          ts.clients.data,
          { name: INSTANCE },
          new grpc.Metadata(),
          { deadline: Date.now() - 1 },
          (e: grpc.ServiceError | null) => resolve(e),
        ),
      );
      expect(err?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    }
  });
});
