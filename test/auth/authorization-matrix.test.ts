import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type TabletopDatabase } from '../../src/db/index.js';
import type { IamBinding } from '../../src/db/api.js';
import { startGrpcServer, type GrpcServerHandle } from '../../src/server/grpc-server.js';
import { Metrics } from '../../src/server/metrics.js';
import { createSqlEngine } from '../../src/sql/index.js';
import { DEFAULT_SERVER_TUNING } from '../../src/server/server-config.js';
import { AuthFileSource, credentialsAuthenticator } from '../../src/server/auth/credentials-authenticator.js';
import { type AuthState, EMPTY_AUTH_STATE, newToken, withGrant, writeAuthState } from '../../src/server/auth/auth-file.js';
import { makeTestCertificates } from '../../src/server/testing/test-certificates.js';
import { tlsNodeClient } from '../../src/server/testing/tls-clients.js';
import { createMemoryEngine } from '../../src/storage/memory/index.js';
import { memoryLogger } from '../../src/testing/memory-logger.js';
import { codeName, expectCode, outcome, status } from '../harness/grpc-errors.js';
import { PROJECT } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';

/**
 * The authorization matrix: each role (admin, user, reader, viewer, none) granted on each kind of resource
 * (an instance, a table, an authorized view) against each kind of RPC (reads, writes, SampleRowKeys, table admin
 * reads and writes, instance admin reads and writes, IAM get and set, GoogleSQL), through the official Node client with
 * `authorization: Bearer <token>` metadata over TLS, with tabletop tokens: OK or PERMISSION_DENIED, as the real service answers. The
 * authorized-view rows run once the server serves authorized views.
 */

const ROLES = ['admin', 'user', 'reader', 'viewer', 'none'] as const;
type Role = (typeof ROLES)[number];
const LEVELS = ['instance', 'table', 'view'] as const;
type Level = (typeof LEVELS)[number];

/** Each level has an instance of its own: a grant at one level never meets the calls of another. */
const INSTANCE_OF: Record<Level, string> = { instance: 'byinstance', table: 'bytable', view: 'byview' };
const ROOT = 'root';
const tokenOf = (role: Role, level: Level): string => `${role}-${level}`;
const memberOf = (role: Role, level: Level): string => `user:${tokenOf(role, level)}@example.com`;

/** Every principal's token, and the project-level bootstrap binding of the one that sets things up. */
const TOKENS: Record<string, string> = { [ROOT]: `user:${ROOT}@example.com` };
for (const level of LEVELS) for (const role of ROLES) TOKENS[tokenOf(role, level)] = memberOf(role, level);
const PROJECT_BINDINGS: IamBinding[] = [{ role: 'roles/bigtable.admin', members: [`user:${ROOT}@example.com`] }];

interface AuthServer {
  readonly address: string;
  readonly metrics: Metrics;
  /** An official Node client over TLS that sends `authorization: Bearer <the named principal's token>` on every call (none: no header). */
  client(token: string | undefined): Bigtable;
  stop(): Promise<void>;
}

/**
 * The server under test, in one place: gRPC over TLS (a test CA's certificate), authentication required, a
 * tabletop token per principal in an auth file (as `tabletop auth create-token` makes them), the root principal
 * an admin of the project through the file's project-level grant (`tabletop auth grant`). Clients are the
 * official Node client over TLS with `authorization: Bearer <token>` (as the README tells users to connect).
 */
async function startAuthServer(): Promise<AuthServer> {
  const certs = makeTestCertificates();
  const dir = mkdtempSync(join(tmpdir(), 'tabletop-matrix-'));
  const authFile = join(dir, 'auth.json');
  const tokens = new Map<string, string>();
  let state: AuthState = EMPTY_AUTH_STATE;
  for (const [name, member] of Object.entries(TOKENS)) {
    const made = newToken(member, { now: new Date() });
    tokens.set(name, made.token);
    state = { ...state, tokens: [...state.tokens, made.stored] };
  }
  for (const b of PROJECT_BINDINGS) for (const m of b.members) state = withGrant(state, PROJECT, b.role, m);
  writeAuthState(authFile, state);
  const source = new AuthFileSource(authFile);
  const db: TabletopDatabase = await createDatabase({ engine: createMemoryEngine() });
  const metrics = new Metrics();
  const grpc: GrpcServerHandle = await startGrpcServer({
    db,
    host: 'localhost',
    port: 0,
    logger: memoryLogger(),
    metrics,
    tuning: DEFAULT_SERVER_TUNING,
    sql: createSqlEngine(db),
    authenticator: credentialsAuthenticator({ required: true, tokens: source }),
    projectPolicies: source,
    tls: { cert: certs.serverCert, key: certs.serverKey },
  });
  const clients: Bigtable[] = [];
  return {
    address: grpc.address,
    metrics,
    client(name) {
      // A name without a token of its own is sent as it is (a forged credential).
      const token = name === undefined ? undefined : (tokens.get(name) ?? name);
      const bt = tlsNodeClient({ endpoint: grpc.address, ca: certs.ca, token: () => token, projectId: PROJECT });
      clients.push(bt);
      return bt;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await grpc.stop();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(certs.dir, { recursive: true, force: true });
    },
  };
}

/**
 * A call of a generated admin client through the Node client: the IAM calls go this way because the Node
 * client's Table/Instance.setIamPolicy mishandle an error (they call back twice, the second time with a
 * TypeError), and it has no API for authorized views' IAM.
 */
const request = (bt: Bigtable, client: 'BigtableInstanceAdminClient' | 'BigtableTableAdminClient', method: string, reqOpts: object) =>
  adminCall(bt, client, method, reqOpts);

type RpcKind =
  | 'read'
  | 'write'
  | 'sampleRowKeys'
  | 'tableAdminRead'
  | 'tableAdminWrite'
  | 'instanceAdminRead'
  | 'instanceAdminWrite'
  | 'iamGet'
  | 'iamSet'
  | 'sql';
const RPC_KINDS: readonly RpcKind[] = [
  'read',
  'write',
  'sampleRowKeys',
  'tableAdminRead',
  'tableAdminWrite',
  'instanceAdminRead',
  'instanceAdminWrite',
  'iamGet',
  'iamSet',
  'sql',
];

const OK = 'ok';
const DENIED = 'PERMISSION_DENIED';
type Expected = typeof OK | typeof DENIED;

/**
 * The expected answers, by hand (not derived from tabletop's role table), from Google's role reference:
 * admin may do everything on and under what it was granted; user reads and writes data and reads metadata;
 * reader reads data and metadata; viewer reads metadata only (not policies); none nothing. Grants reach down
 * (instance → table → view), never up: a table grant gives nothing on the instance, a view grant nothing on
 * the table. With a view grant, data calls go through the view; admin calls name the table and instance.
 * GoogleSQL (PrepareQuery) needs bigtable.instances.executeQuery on the instance: a table or view grant is not
 * enough.
 */
const EXPECTED: Record<Level, Record<RpcKind, Record<Role, Expected>>> = (() => {
  const row = (admin: Expected, user: Expected, reader: Expected, viewer: Expected): Record<Role, Expected> => ({
    admin,
    user,
    reader,
    viewer,
    none: DENIED,
  });
  const D = DENIED;
  const dataAndMetadata = {
    read: row(OK, OK, OK, D),
    write: row(OK, OK, D, D),
    sampleRowKeys: row(OK, OK, OK, D),
    iamGet: row(OK, D, D, D),
    iamSet: row(OK, D, D, D),
  };
  return {
    instance: {
      ...dataAndMetadata,
      tableAdminRead: row(OK, OK, OK, OK),
      tableAdminWrite: row(OK, D, D, D),
      instanceAdminRead: row(OK, OK, OK, OK),
      instanceAdminWrite: row(OK, D, D, D),
      sql: row(OK, OK, OK, D),
    },
    table: {
      ...dataAndMetadata,
      tableAdminRead: row(OK, OK, OK, OK),
      tableAdminWrite: row(OK, D, D, D),
      instanceAdminRead: row(D, D, D, D),
      instanceAdminWrite: row(D, D, D, D),
      sql: row(D, D, D, D),
    },
    view: {
      ...dataAndMetadata,
      tableAdminRead: row(D, D, D, D),
      tableAdminWrite: row(D, D, D, D),
      instanceAdminRead: row(D, D, D, D),
      instanceAdminWrite: row(D, D, D, D),
      sql: row(D, D, D, D),
    },
  };
})();

const TABLE = 't';
const VIEW = 'v';
const tableName = (level: Level): string => `projects/${PROJECT}/instances/${INSTANCE_OF[level]}/tables/${TABLE}`;
const viewName = (): string => `${tableName('view')}/authorizedViews/${VIEW}`;
/** The resource whose policy a level's grants are in. */
const grantedOn = (level: Level): string =>
  level === 'instance' ? `projects/${PROJECT}/instances/${INSTANCE_OF.instance}` : level === 'table' ? tableName('table') : viewName();

let server: AuthServer;
let root: Bigtable;
let families = 0;

/** Runs one RPC of `kind` as `bt` against the resources of `level`. */
function run(bt: Bigtable, level: Level, kind: RpcKind): Promise<unknown> {
  const instance = bt.instance(INSTANCE_OF[level]);
  const data = level === 'view' ? instance.view(TABLE, VIEW) : instance.table(TABLE);
  const table = instance.table(TABLE);
  switch (kind) {
    case 'read':
      return data.getRows({ limit: 1 });
    case 'write':
      return data.insert([{ key: 'row', data: { cf: { q: 'v' } } }]);
    case 'sampleRowKeys':
      return data.sampleRowKeys();
    case 'tableAdminRead':
      return table.getMetadata();
    case 'tableAdminWrite':
      return table.createFamily(`f${++families}`);
    case 'instanceAdminRead':
      return instance.getMetadata();
    case 'instanceAdminWrite':
      return instance.setMetadata({ displayName: `changed ${++families}` });
    case 'iamGet':
      return request(bt, level === 'instance' ? 'BigtableInstanceAdminClient' : 'BigtableTableAdminClient', 'getIamPolicy', {
        resource: grantedOn(level),
      });
    case 'iamSet':
      return setGrants(bt, level);
    case 'sql':
      return instance.prepareStatement(`SELECT _key FROM ${TABLE} LIMIT 1`);
  }
}

/** Sets the level's grants (each role to its principal) as `bt`: the same policy every time. */
function setGrants(bt: Bigtable, level: Level): Promise<unknown> {
  const bindings = ROLES.filter((r) => r !== 'none').map((r) => ({ role: `roles/bigtable.${r}`, members: [memberOf(r, level)] }));
  return request(bt, level === 'instance' ? 'BigtableInstanceAdminClient' : 'BigtableTableAdminClient', 'setIamPolicy', {
    resource: grantedOn(level),
    policy: { bindings },
  });
}

beforeAll(async () => {
  server = await startAuthServer();
  root = server.client(ROOT);
  for (const level of LEVELS)
    await root
      .instance(INSTANCE_OF[level])
      .table(TABLE)
      .create({ families: ['cf'] });
  await request(root, 'BigtableTableAdminClient', 'createAuthorizedView', {
    parent: tableName('view'),
    authorizedViewId: VIEW,
    authorizedView: { subsetView: { rowPrefixes: [Buffer.from('')], familySubsets: { cf: { qualifierPrefixes: [Buffer.from('')] } } } },
  });
  for (const level of LEVELS) await setGrants(root, level);
});

afterAll(async () => {
  await server?.stop();
});

describe('the authorization matrix', () => {
  for (const level of LEVELS) {
    describe(`roles granted on the ${level}`, () => {
      for (const kind of RPC_KINDS) {
        it(`${kind}: ${ROLES.map((r) => `${r} ${EXPECTED[level][kind][r]}`).join(', ')}`, async () => {
          const got: Record<string, string> = {};
          for (const role of ROLES) {
            const r = await outcome(run(server.client(tokenOf(role, level)), level, kind));
            got[role] = r === 'ok' ? OK : typeof r === 'number' ? codeName(r) : r;
          }
          expect(got).toEqual(EXPECTED[level][kind]);
        });
      }
    });
  }
});

describe('authentication', () => {
  it('refuses calls without credentials UNAUTHENTICATED, and calls with a bad token, whatever the method', async () => {
    const anonymous = server.client(undefined);
    const message = await expectCode(anonymous.instance(INSTANCE_OF.table).table(TABLE).getRows(), status.UNAUTHENTICATED);
    expect(message).toContain('Bearer');
    await expectCode(anonymous.instance(INSTANCE_OF.table).getMetadata(), status.UNAUTHENTICATED);
    const forged = server.client('forged');
    await expectCode(forged.instance(INSTANCE_OF.table).table(TABLE).getRows(), status.UNAUTHENTICATED);
  });

  it('names the missing permission and the resource in PERMISSION_DENIED, and counts refused calls in the metrics', async () => {
    const before = server.metrics.count('google.bigtable.v2.Bigtable', 'ReadRows', 'PERMISSION_DENIED');
    const message = await expectCode(
      server.client(tokenOf('viewer', 'table')).instance(INSTANCE_OF.table).table(TABLE).getRows(),
      status.PERMISSION_DENIED,
    );
    expect(message).toContain(`Missing IAM permission: bigtable.tables.readRows on resource ${tableName('table')}`);
    expect(server.metrics.count('google.bigtable.v2.Bigtable', 'ReadRows', 'PERMISSION_DENIED')).toBe(before + 1);
  });

  it('answers TestIamPermissions from the policies for the caller, and refuses permissions that do not apply', async () => {
    const asked = ['bigtable.tables.readRows', 'bigtable.tables.mutateRows', 'bigtable.tables.get'];
    const as = (role: Role): Promise<unknown> =>
      server.client(tokenOf(role, 'table')).instance(INSTANCE_OF.table).table(TABLE).testIamPermissions(asked);
    expect(await as('reader')).toEqual([['bigtable.tables.readRows', 'bigtable.tables.get']]);
    expect(await as('user')).toEqual([asked]);
    expect(await as('none')).toEqual([[]]);
    const wrongKind = server.client(ROOT).instance(INSTANCE_OF.table).table(TABLE).testIamPermissions(['bigtable.instances.update']);
    await expectCode(wrongKind, status.INVALID_ARGUMENT);
  });

  it('lets a project admin work on resources with no policy, and refuses policies granting allUsers', async () => {
    const [exists] = await root.instance(INSTANCE_OF.table).table(TABLE).exists();
    expect(exists).toBe(true);
    await expectCode(
      request(root, 'BigtableTableAdminClient', 'setIamPolicy', {
        resource: tableName('table'),
        policy: { bindings: [{ role: 'roles/bigtable.reader', members: ['allUsers'] }] },
      }),
      status.INVALID_ARGUMENT,
    );
  });
});
