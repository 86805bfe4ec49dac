import https from 'node:https';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type TabletopDatabase } from '../../db/index.js';
import { TabletopError } from '../../model/errors.js';
import { createMemoryEngine } from '../../storage/memory/index.js';
import { memoryLogger } from '../../testing/memory-logger.js';
import { newToken, writeAuthState } from '../auth/auth-file.js';
import type { Authorizer } from '../auth/authorizer.js';
import { AuthFileSource, credentialsAuthenticator } from '../auth/credentials-authenticator.js';
import type { Principal } from '../auth/principal.js';
import { type TabletopServer, type TabletopServerOptions, startTabletopServer } from '../server.js';
import { type TestCertificates, makeTestCertificates } from '../testing/test-certificates.js';

/**
 * An Authorizer over a fixed table of grants (member → permission@resource),
 * with a resource's grants covering its children: the interface's contract,
 * in memory, for the HTTP server's checks (the IAM one is tested with it).
 */
function tableAuthorizer(grants: Record<string, readonly string[]>): Authorizer {
  const holds = (p: Principal | undefined, permission: string, resource: string): boolean =>
    (grants[p?.member ?? 'allUsers'] ?? []).some((g) => {
      const [perm, on] = g.split('@') as [string, string];
      return perm === permission && (resource === on || resource.startsWith(`${on}/`));
    });
  return {
    check(p, permission, resource) {
      if (!holds(p, permission, resource))
        throw new TabletopError('PermissionDenied', `${p?.member ?? 'an anonymous caller'} lacks ${permission} on ${resource}`);
    },
    granted: (p, permissions, resource) => permissions.filter((perm) => holds(p, perm, resource)),
  };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

let certs: TestCertificates;
let db: TabletopDatabase;
let server: TabletopServer;
let alice: string;
let bob: string;
const log = memoryLogger();

beforeAll(async () => {
  certs = makeTestCertificates();
  const authFile = join(mkdtempSync(join(tmpdir(), 'tabletop-http-auth-')), 'auth.json');
  const a = newToken('user:alice@example.com', { now: new Date() });
  const b = newToken('user:bob@example.com', { now: new Date() });
  alice = a.token;
  bob = b.token;
  writeAuthState(authFile, { tokens: [a.stored, b.stored], bindings: [] });
  db = await createDatabase({ engine: createMemoryEngine() });
  db.createTable({ project: 'p', instance: 'i', table: 't' }, { families: [], initialSplits: [], deletionProtection: false });
  db.createTable({ project: 'q', instance: 'j', table: 'u' }, { families: [], initialSplits: [], deletionProtection: false });
  server = await startTabletopServer({
    db,
    host: 'localhost',
    port: 0,
    httpPort: 0,
    logger: log,
    storage: 'in memory',
    version: 'test',
    tls: { cert: certs.serverCert, key: certs.serverKey },
    authenticator: credentialsAuthenticator({ required: true, tokens: new AuthFileSource(authFile) }),
    authorizer: tableAuthorizer({
      'user:alice@example.com': [
        'bigtable.instances.list@projects/p',
        'bigtable.tables.list@projects/p/instances/i',
        'bigtable.tables.readRows@projects/p/instances/i/tables/t',
      ],
      'user:bob@example.com': ['bigtable.tables.list@projects/p/instances/i'],
    }),
  });
});

afterAll(async () => {
  await server.stop();
  await db.close();
});

function request(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, server.httpUrl),
      { method: opts.method ?? 'GET', headers: opts.headers ?? {}, ca: certs.ca },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end(opts.body);
  });
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('HTTP server with authentication on, over HTTPS', () => {
  it('serves over TLS at an https URL', () => {
    expect(server.httpUrl).toMatch(/^https:\/\/localhost:\d+\/$/);
  });

  it('keeps /healthz, the UI files and the login page open, and refuses everything else without credentials (401, JSON)', async () => {
    expect((await request('/healthz')).status).toBe(200);
    expect((await request('/login')).body).toContain('<form method="post" action="/login">');
    for (const path of [
      '/api/v1/projects',
      '/api/v1/projects/p/instances/i/tables',
      '/api/v1/projects/p/instances/i/tables/t/heatmap',
      '/metrics',
    ]) {
      const answer = await request(path);
      expect([path, answer.status, answer.headers['www-authenticate']]).toEqual([path, 401, 'Bearer realm="tabletop"']);
      expect(JSON.parse(answer.body).error).toEqual({ code: 'Unauthenticated', message: expect.stringContaining('requires credentials') });
    }
    const sql = await request('/api/v1/projects/p/instances/i/sql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT 1' }),
    });
    expect(sql.status).toBe(401);
    // The UI's shell sends a person to the login page.
    const shell = await request('/');
    expect([shell.status, shell.headers.location]).toEqual([303, '/login']);
  });

  it('answers a caller with a token, and checks each route for the permission of its RPC (403 naming it)', async () => {
    const tables = await request('/api/v1/projects/p/instances/i/tables', { headers: bearer(bob) });
    expect(tables.status).toBe(200);
    expect(JSON.parse(tables.body).tables.map((t: { tableId: string }) => t.tableId)).toEqual(['t']);
    const heatmap = await request('/api/v1/projects/p/instances/i/tables/t/tablets', { headers: bearer(bob) });
    expect(heatmap.status).toBe(403);
    expect(JSON.parse(heatmap.body).error.message).toBe(
      'user:bob@example.com lacks bigtable.tables.readRows on projects/p/instances/i/tables/t',
    );
    expect((await request('/api/v1/projects/p/instances/i/tables/t/tablets', { headers: bearer(alice) })).status).toBe(200);
    expect((await request('/api/v1/projects/q/instances/j/tables', { headers: bearer(alice) })).status).toBe(403);
    // The project list shows only the projects whose instances the caller may list.
    const projects = JSON.parse((await request('/api/v1/projects', { headers: bearer(alice) })).body);
    expect(projects.projects.map((p: { projectId: string }) => p.projectId)).toEqual(['p']);
    const metrics = await request('/metrics', { headers: bearer(bob) });
    expect(metrics.status).toBe(200);
    for (const token of [alice, bob]) expect(metrics.body).not.toContain(token.slice(token.indexOf('.') + 1));
    const shell = await request('/', { headers: bearer(bob) });
    expect(shell.status).toBe(200);
    expect(shell.body).toContain('served over gRPC\nwith TLS at');
    expect(shell.body).not.toContain('BIGTABLE_EMULATOR_HOST');
  });

  it('signs a person in with a pasted token: an HttpOnly, SameSite=Strict, Secure cookie that the API then accepts; logout clears it', async () => {
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const refused = await request('/login', { ...form, body: `token=${encodeURIComponent(`${alice}x`)}` });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('neither a tabletop token');
    expect(refused.body).not.toContain(alice.slice(alice.indexOf('.') + 1));
    expect(refused.headers['set-cookie']).toBeUndefined();

    const signedIn = await request('/login', { ...form, body: `token=${encodeURIComponent(alice)}` });
    expect([signedIn.status, signedIn.headers.location]).toEqual([303, '/']);
    const [cookie] = signedIn.headers['set-cookie'] as string[];
    expect(cookie).toMatch(/^tabletop_token=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    const pair = cookie!.split(';')[0]!;
    expect((await request('/api/v1/projects/p/instances/i/tables', { headers: { cookie: pair } })).status).toBe(200);
    expect((await request('/', { headers: { cookie: pair } })).status).toBe(200);

    const out = await request('/logout', { method: 'POST' });
    expect(out.status).toBe(303);
    expect((out.headers['set-cookie'] as string[])[0]).toMatch(/^tabletop_token=; .*Max-Age=0$/);
    // A cookie with a token that is not valid is refused, and says how to sign in again.
    const stale = await request('/api/v1/projects', { headers: { cookie: 'tabletop_token=tt_0123456789abcdef.' + 'A'.repeat(43) } });
    expect(stale.status).toBe(401);
    expect(JSON.parse(stale.body).error.message).toContain('sign in again at /login');
  });

  it('logs no token', () => {
    const logged = JSON.stringify(log.records);
    expect(log.records.some((r) => r.message.includes('signed in to the web UI'))).toBe(true);
    for (const token of [alice, bob]) expect(logged).not.toContain(token.slice(token.indexOf('.') + 1));
  });
});

/** Another server over a fresh database, with these options. */
async function serveHttp(extra: Partial<TabletopServerOptions>): Promise<{ server: TabletopServer; stop: () => Promise<void> }> {
  const own = await createDatabase({ engine: createMemoryEngine() });
  const started = await startTabletopServer({
    db: own,
    host: 'localhost',
    port: 0,
    httpPort: 0,
    logger: memoryLogger(),
    storage: 'in memory',
    version: 'test',
    ...extra,
  });
  const stop = async (): Promise<void> => {
    await started.stop();
    await own.close();
  };
  return { server: started, stop };
}

describe('HTTP server with authentication off', () => {
  it('stays open, and refuses bad credentials 401 all the same', async () => {
    const { server: open, stop } = await serveHttp({ authenticator: credentialsAuthenticator({ required: false }) });
    try {
      expect((await fetch(new URL('/api/v1/projects', open.httpUrl))).status).toBe(200);
      expect((await fetch(new URL('/', open.httpUrl))).status).toBe(200);
      const bad = await fetch(new URL('/api/v1/projects', open.httpUrl), { headers: { authorization: 'Bearer nope' } });
      expect(bad.status).toBe(401);
    } finally {
      await stop();
    }
  });
});

describe('HTTP server with mutual TLS', () => {
  it('answers clients with a certificate from the client CA, and refuses others at the handshake', async () => {
    const { server: mtls, stop } = await serveHttp({ tls: { cert: certs.serverCert, key: certs.serverKey, clientCa: certs.ca } });
    const healthz = (client?: { cert: Buffer; key: Buffer }) =>
      new Promise<number | string>((resolve) => {
        https
          .get(new URL('/healthz', mtls.httpUrl), { ca: certs.ca, ...(client ?? {}) }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
    try {
      expect(await healthz({ cert: certs.clientCert, key: certs.clientKey })).toBe(200);
      expect(await healthz()).not.toBe(200);
      expect(await healthz({ cert: certs.otherClientCert, key: certs.otherClientKey })).not.toBe(200);
      expect(await healthz({ cert: certs.clientCert, key: certs.clientKey })).toBe(200);
    } finally {
      await stop();
    }
  });
});
