import { mkdtempSync } from 'node:fs';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type TabletopDatabase } from '../db/index.js';
import { createMemoryEngine } from '../storage/memory/index.js';
import { memoryLogger } from '../testing/memory-logger.js';
import { newToken, withGrant, writeAuthState } from './auth/auth-file.js';
import { AuthFileSource, credentialsAuthenticator } from './auth/credentials-authenticator.js';
import { type TabletopServer, startTabletopServer } from './server.js';
import type { ServerTuning } from './server-config.js';
import { type TestCertificates, makeTestCertificates } from './testing/test-certificates.js';
import { plainNodeClient, tlsNodeClient } from './testing/tls-clients.js';
import type { TlsOptions } from './tls-options.js';

let certs: TestCertificates;
let token: string;
let authFile: string;

beforeAll(() => {
  certs = makeTestCertificates();
  authFile = join(mkdtempSync(join(tmpdir(), 'tabletop-auth-')), 'auth.json');
  const made = newToken('user:alice@example.com', { now: new Date() });
  token = made.token;
  // Alice may do anything in project p (the bootstrap grant `tabletop auth grant` makes): these tests are about
  // the transport and authentication; test/auth/authorization-matrix.test.ts is about permissions.
  writeAuthState(authFile, withGrant({ tokens: [made.stored], bindings: [] }, 'p', 'roles/bigtable.admin', 'user:alice@example.com'));
});

interface Running {
  readonly server: TabletopServer;
  readonly db: TabletopDatabase;
  readonly log: ReturnType<typeof memoryLogger>;
  stop(): Promise<void>;
}

async function serve(opts: { tls?: TlsOptions; required?: boolean; transport?: ServerTuning['transport'] }): Promise<Running> {
  const db = await createDatabase({ engine: createMemoryEngine() });
  const log = memoryLogger();
  const source = new AuthFileSource(authFile);
  const server = await startTabletopServer({
    db,
    host: 'localhost',
    port: 0,
    httpPort: false,
    logger: log,
    storage: 'in memory',
    version: 'test',
    tuning: { transport: opts.transport ?? 'h2', prefaceTimeoutMillis: 2_000 },
    authenticator: credentialsAuthenticator({ required: opts.required ?? true, tokens: source }),
    projectPolicies: source,
    ...(opts.tls === undefined ? {} : { tls: opts.tls }),
  });
  return {
    server,
    db,
    log,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** Creates a table, writes a row and reads it back through `client`; resolves with the row count. */
async function roundTrip(client: ReturnType<typeof tlsNodeClient>): Promise<number> {
  const table = client.instance('i').table(`t${Math.random().toString(36).slice(2, 8)}`);
  await table.create({ families: ['cf'] });
  await table.insert([{ key: 'r1', data: { cf: { q: 'v' } } }]);
  const [rows] = await table.getRows();
  return rows.length;
}

const endpoint = (s: TabletopServer): string => `localhost:${s.port}`;

/** A call the client does not retry (CreateTable), so that a failed connection shows at once; its error. */
function probe(client: ReturnType<typeof tlsNodeClient>): Promise<{ code: number; message: string } | undefined> {
  return client
    .instance('i')
    .table(`probe${Math.random().toString(36).slice(2, 8)}`)
    .create()
    .then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    );
}

for (const transport of ['h2', 'grpc-js'] as const) {
  describe(`gRPC over TLS (${transport} transport)`, () => {
    let running: Running;
    beforeAll(async () => {
      running = await serve({ tls: { cert: certs.serverCert, key: certs.serverKey }, transport });
    });
    afterAll(() => running.stop());

    it('serves the official Node client that trusts the CA and sends a token', async () => {
      const client = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => token });
      expect(await roundTrip(client)).toBe(1);
      await client.close();
    });

    it('refuses calls without a token, with a bad one and with a malformed header, UNAUTHENTICATED, naming no secret', async () => {
      const forged = `${token.slice(0, token.indexOf('.') + 1)}${'A'.repeat(43)}`;
      for (const [credential, message] of [
        [undefined, /requires credentials/],
        [forged, /Token tt_[0-9a-f]{16} is not valid: unknown or revoked/],
        ['not-a-token', /neither a tabletop token .* nor a JWT/],
      ] as const) {
        const client = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => credential });
        const error = await probe(client);
        expect(error?.code).toBe(16);
        expect(error?.message).toMatch(message);
        expect(error?.message).not.toContain(forged.slice(forged.indexOf('.') + 1));
        await client.close();
      }
      // Refused calls are counted like any other, under their status.
      expect(running.server.metrics.count('google.bigtable.admin.v2.BigtableTableAdmin', 'CreateTable', 'UNAUTHENTICATED')).toBe(3);
      const logged = JSON.stringify(running.log.records);
      expect(logged).not.toContain(token.slice(token.indexOf('.') + 1));
      expect(logged).not.toContain('A'.repeat(43));
    });

    it('fails closed for a client that does not trust the CA, and for plain text; others keep being served', async () => {
      const wrongCa = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.otherCa, token: () => token });
      const wrong = await probe(wrongCa);
      expect(wrong?.code).toBe(14);
      expect(wrong?.message).toMatch(/certificate/);
      await wrongCa.close();

      const plain = plainNodeClient(endpoint(running.server));
      expect((await probe(plain))?.code).toBe(14);
      await plain.close();
      expect(running.log.lines.some((l) => /plain-text connection from .* to the TLS gRPC port was closed/.test(l))).toBe(true);

      const good = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => token });
      expect(await roundTrip(good)).toBe(1);
      await good.close();
    });
  });
}

describe('TLS connections that never send the HTTP/2 preface', () => {
  it('are dropped (silent ones after the preface timeout), and the server keeps serving', async () => {
    const running = await serve({ tls: { cert: certs.serverCert, key: certs.serverKey } });
    try {
      const connect = () =>
        new Promise<tls.TLSSocket>((resolve, reject) => {
          const s = tls.connect({ host: 'localhost', port: running.server.port, ca: certs.ca, ALPNProtocols: ['h2'] }, () => resolve(s));
          s.once('error', reject);
        });
      const closed = (s: tls.TLSSocket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));
      const http1 = await connect();
      http1.on('error', () => {});
      http1.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      const silent = await connect();
      silent.on('error', () => {});
      await closed(http1);
      const began = Date.now();
      await closed(silent);
      expect(Date.now() - began).toBeLessThan(5_000);
      const good = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => token });
      expect(await roundTrip(good)).toBe(1);
      await good.close();
    } finally {
      await running.stop();
    }
  });
});

describe('TLS against a plain-text port', () => {
  it('fails closed, the server says why, and plain-text clients keep being served', async () => {
    const running = await serve({ required: false });
    try {
      const tlsClient = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => token });
      expect((await probe(tlsClient))?.code).toBe(14);
      await tlsClient.close();
      expect(running.log.lines.some((l) => /a TLS connection from .* to the plain-text gRPC port was closed/.test(l))).toBe(true);
      const plain = plainNodeClient(endpoint(running.server));
      expect(await roundTrip(plain)).toBe(1);
      await plain.close();
    } finally {
      await running.stop();
    }
  });
});

describe('mutual TLS', () => {
  let running: Running;
  beforeAll(async () => {
    running = await serve({ tls: { cert: certs.serverCert, key: certs.serverKey, clientCa: certs.ca } });
  });
  afterAll(() => running.stop());

  it('serves clients with a certificate from the client CA, and refuses those without one or with another CA', async () => {
    const withCert = tlsNodeClient({
      endpoint: endpoint(running.server),
      ca: certs.ca,
      token: () => token,
      clientCert: { cert: certs.clientCert, key: certs.clientKey },
    });
    expect(await roundTrip(withCert)).toBe(1);

    const without = tlsNodeClient({ endpoint: endpoint(running.server), ca: certs.ca, token: () => token });
    expect((await probe(without))?.code).toBe(14);
    await without.close();
    const otherCa = tlsNodeClient({
      endpoint: endpoint(running.server),
      ca: certs.ca,
      token: () => token,
      clientCert: { cert: certs.otherClientCert, key: certs.otherClientKey },
    });
    expect((await probe(otherCa))?.code).toBe(14);
    await otherCa.close();

    expect(await roundTrip(withCert)).toBe(1);
    await withCert.close();
  });
});
