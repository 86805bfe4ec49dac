import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCertificates, makeTestCertificates } from '../../src/server/testing/test-certificates.js';
import { tlsNodeClient } from '../../src/server/testing/tls-clients.js';
import { type GuardedChild, spawnGuarded, stopGuarded } from '../harness/guarded-child.js';
import { REPO_ROOT, TABLETOP_MAIN, capture, waitForOutput } from '../harness/targets.js';

/**
 * `tabletop serve` with TLS and authentication on, as a real process, and
 * `tabletop auth` run beside it while it serves: tokens made, expired and
 * revoked while the server runs; OIDC identity tokens against a JWKS file;
 * the official Node client and cbt over TLS with a token; the HTTP API over
 * HTTPS; `--host` beyond loopback without authentication refused; no secret
 * in the server's output.
 */

const ISSUER = 'https://accounts.example.com';
const AUDIENCE = 'tabletop-e2e';

let certs: TestCertificates;
let dataDir: string;
let server: { child: GuardedChild; output: () => string; grpc: string; http: string };
const oidcKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const secrets: string[] = [];

function tabletop(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TABLETOP_MAIN, ...args],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function createToken(member: string, ...more: string[]): Promise<string> {
  const r = await tabletop(['auth', 'create-token', '--member', member, '--data-dir', dataDir, ...more]);
  expect(r.code).toBe(0);
  const token = r.stdout.trim();
  secrets.push(token.slice(token.indexOf('.') + 1));
  return token;
}

function identityToken(claims: object): string {
  const token = jwt.sign({ iss: ISSUER, aud: AUDIENCE, ...claims }, oidcKey.privateKey, {
    algorithm: 'RS256',
    keyid: 'e2e',
    expiresIn: 600,
  });
  secrets.push(token.split('.')[2]!);
  return token;
}

async function start(args: string[]): Promise<{ child: GuardedChild; output: () => string; match: RegExpExecArray }> {
  const child = spawnGuarded(process.execPath, [TABLETOP_MAIN, 'serve', '--port', '0', '--http-port', '0', ...args], { cwd: REPO_ROOT });
  const tail = capture(child);
  const match = await waitForOutput(child, tail, 'tabletop', /gRPC: grpcs:\/\/(\S+) \(TLS[^\n]*\nHTTP: (\S+)\n/);
  return { child, output: () => tail.toString(), match };
}

beforeAll(async () => {
  certs = makeTestCertificates();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tabletop-e2e-auth-'));
  // The bootstrap grants (`tabletop auth grant`): every example.com user and the CI service account administer
  // every project; anyone else holds nothing.
  for (const member of ['domain:example.com', 'serviceAccount:ci@p.iam.gserviceaccount.com']) {
    expect((await tabletop(['auth', 'grant', '--member', member, '--role', 'roles/bigtable.admin', '--data-dir', dataDir])).code).toBe(0);
  }
  const jwks = path.join(certs.dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...oidcKey.publicKey.export({ format: 'jwk' }), kid: 'e2e', alg: 'RS256', use: 'sig' }] }));
  const s = await start([
    '--data-dir',
    dataDir,
    '--tls-cert',
    certs.serverCertFile,
    '--tls-key',
    certs.serverKeyFile,
    '--auth',
    'on',
    '--oidc-jwks',
    jwks,
    '--oidc-issuer',
    ISSUER,
    '--oidc-audience',
    AUDIENCE,
  ]);
  server = { child: s.child, output: s.output, grpc: s.match[1]!, http: s.match[2]! };
});

const clients = new Map<string, ReturnType<typeof tlsNodeClient>>();

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()));
  if (server !== undefined) await stopGuarded(server.child);
});

/** The status of a call the client does not retry (CreateTable), made with `token`: 'OK' or the error's code and message. */
async function createTable(token: string | undefined, table = `t${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  // One client per credential, kept: a call then costs no new connection (the timings below measure the server).
  const key = token ?? '';
  let client = clients.get(key);
  if (client === undefined) {
    client = tlsNodeClient({ endpoint: server.grpc, ca: certs.ca, token: () => token });
    clients.set(key, client);
  }
  try {
    await client
      .instance('i')
      .table(table)
      .create({ families: ['cf'] });
    return 'OK';
  } catch (e) {
    return `${(e as { code: number }).code} ${(e as Error).message}`;
  }
}

async function until(f: () => Promise<boolean>, ms: number): Promise<number> {
  const began = Date.now();
  while (!(await f())) {
    if (Date.now() - began > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - began;
}

describe('serve --tls-cert --tls-key --auth on (a real process)', () => {
  it('accepts a token created while it runs, refuses one revoked while it runs within a second or so', async () => {
    const stranger = await createToken('user:mallory@elsewhere.org');
    const token = await createToken('user:alice@example.com', '--description', 'e2e');
    // The server looks at the auth file at most once a second.
    await until(async () => (await createTable(token)) === 'OK', 3_000);
    // A valid token proves who calls; the grants decide what it may do (mallory is not in example.com).
    expect(await createTable(stranger)).toMatch(
      /^7 .*Missing IAM permission: bigtable\.tables\.create on resource projects\/p\/instances\/i/,
    );
    expect(await createTable(undefined)).toMatch(/^16 .*requires credentials/);
    const id = token.slice(0, token.indexOf('.'));
    expect((await tabletop(['auth', 'revoke-token', id, '--data-dir', dataDir])).code).toBe(0);
    const took = await until(async () => (await createTable(token)).startsWith('16 '), 3_000);
    expect(took).toBeLessThan(2_500);
    expect(await createTable(token)).toMatch(new RegExp(`^16 .*Token ${id} is not valid: unknown or revoked`));
  });

  it('refuses an expired token, a malformed header and a forged secret, UNAUTHENTICATED', async () => {
    const brief = await createToken('user:bob@example.com', '--expires', '2s');
    await until(async () => (await createTable(brief)) === 'OK', 3_000);
    await until(async () => (await createTable(brief)).startsWith('16 '), 5_000);
    expect(await createTable(brief)).toMatch(/^16 .*expired at /);
    expect(await createTable('not.a-token')).toMatch(/^16 .*neither a tabletop token/);
    expect(await createTable(`${brief.slice(0, brief.indexOf('.'))}.${'A'.repeat(43)}`)).toMatch(/^16 .*unknown or revoked/);
  });

  it('accepts OIDC identity tokens signed by a key of the JWKS, and refuses a wrong audience or signature', async () => {
    expect(await createTable(identityToken({ email: 'ci@p.iam.gserviceaccount.com' }))).toBe('OK');
    expect(await createTable(identityToken({ email: 'ci@p.iam.gserviceaccount.com', aud: 'other' }))).toMatch(/^16 .*jwt audience invalid/);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = jwt.sign({ iss: ISSUER, aud: AUDIENCE, email: 'a@example.com' }, other.privateKey, {
      algorithm: 'RS256',
      keyid: 'e2e',
      expiresIn: 600,
    });
    expect(await createTable(forged)).toMatch(/^16 .*invalid signature/);
  });

  it('serves cbt over TLS with -cert-file and -access-token', async () => {
    const token = await createToken('user:cbt@example.com');
    await until(async () => (await createTable(token)) === 'OK', 3_000);
    const home = path.join(os.tmpdir(), `tabletop-cbt-tls-${process.pid}`);
    mkdirSync(home, { recursive: true });
    const cbt = (accessToken: string, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const argv = ['-project', 'p', '-instance', 'i', '-data-endpoint', server.grpc, '-admin-endpoint', server.grpc];
        execFile(
          process.env['CBT'] ?? 'cbt',
          [...argv, '-cert-file', certs.caFile, '-access-token', accessToken, ...args],
          { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, TZ: 'UTC' }, encoding: 'utf8', timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    expect((await cbt(token, 'createtable', 'by-cbt', 'families=cf')).code).toBe(0);
    expect((await cbt(token, 'set', 'by-cbt', 'r1', 'cf:q=v')).code).toBe(0);
    const read = await cbt(token, 'read', 'by-cbt');
    expect(read.stdout).toContain('cf:q');
    const refused = await cbt('tt_0123456789abcdef.' + 'A'.repeat(43), 'ls');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthenticated.*unknown or revoked/);
  });

  it('serves the HTTP API over HTTPS: 401 without a token, 200 with one', async () => {
    const token = await createToken('user:http@example.com');
    const get = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) =>
        https
          .get(new URL('/api/v1/projects', server.http), { ca: certs.ca, headers }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .once('error', reject),
      );
    expect(server.http).toMatch(/^https:/);
    expect(await get({})).toBe(401);
    await until(async () => (await get({ authorization: `Bearer ${token}` })) === 200, 3_000);
  });

  it('answers tabletop tablets over HTTPS with TABLETOP_TOKEN, and says what is missing without it', async () => {
    const token = await createToken('user:cli@example.com');
    const table = `cli${Math.random().toString(36).slice(2, 8)}`;
    await until(async () => (await createTable(token, table)) === 'OK', 3_000);
    const args = ['tablets', table, '--project', 'p', '--instance', 'i', '--server', server.http];
    const env = { NODE_EXTRA_CA_CERTS: certs.caFile };
    const ok = await tabletop(args, { ...env, TABLETOP_TOKEN: token });
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout).toContain('START KEY');
    const refused = await tabletop(args, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/requires credentials.*set TABLETOP_TOKEN/);
  });

  it('writes no secret to its output', () => {
    expect(secrets.length).toBeGreaterThan(4);
    const output = server.output();
    expect(output).toContain('Authentication: on');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

describe('serve --host beyond loopback', () => {
  it('refuses to start without authentication unless --insecure', async () => {
    const r = await tabletop(['serve', '--port', '0', '--http-port', '0', '--in-memory', '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /refusing to start: listening on 0\.0\.0\.0, which is not loopback: .* because authentication is off .*--insecure/,
    );
  });
});
