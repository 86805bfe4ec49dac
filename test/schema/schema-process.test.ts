import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCertificates, makeTestCertificates } from '../../src/server/testing/test-certificates.js';
import { type GuardedChild, spawnGuarded, stopGuarded } from '../harness/guarded-child.js';
import { REPO_ROOT, TABLETOP_MAIN, capture, waitForOutput } from '../harness/targets.js';

/**
 * `tabletop schema` as a real process against a real `tabletop serve` over TLS with authentication on: the endpoint
 * grpcs://, the CA from NODE_EXTRA_CA_CERTS and the token from TABLETOP_TOKEN, as the other commands take them; and
 * stdin that is not a terminal, where a destructive apply is refused unless --yes.
 */
let certs: TestCertificates;
let dir: string;
let server: { child: GuardedChild; output: () => string; grpc: string };
let token: string;

function tabletop(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [TABLETOP_MAIN, ...args],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, BIGTABLE_EMULATOR_HOST: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

beforeAll(async () => {
  certs = makeTestCertificates();
  dir = mkdtempSync(path.join(os.tmpdir(), 'tabletop-schema-e2e-'));
  const authFile = path.join(dir, 'auth.json');
  expect(
    (await tabletop(['auth', 'grant', '--member', 'user:ops@example.com', '--role', 'roles/bigtable.admin', '--auth-file', authFile])).code,
  ).toBe(0);
  const made = await tabletop(['auth', 'create-token', '--member', 'user:ops@example.com', '--auth-file', authFile]);
  expect(made.code).toBe(0);
  token = made.stdout.trim();
  const child = spawnGuarded(
    process.execPath,
    [TABLETOP_MAIN, 'serve', '--port', '0', '--http-port', '0', '--in-memory', '--auth-file', authFile, '--auth', 'on'].concat([
      '--tls-cert',
      certs.serverCertFile,
      '--tls-key',
      certs.serverKeyFile,
    ]),
    { cwd: REPO_ROOT },
  );
  const tail = capture(child);
  const m = await waitForOutput(child, tail, 'tabletop', /gRPC: grpcs:\/\/(\S+) \(TLS/);
  server = { child, output: () => tail.toString(), grpc: m[1]! };
});

afterAll(async () => {
  if (server !== undefined) await stopGuarded(server.child);
  rmSync(dir, { recursive: true, force: true });
});

describe('tabletop schema, a real process over TLS with a token', () => {
  const target = (): string[] => ['--project', 'p', '--instance', 'i', '--endpoint', `grpcs://${server.grpc}`];
  const env = (): Record<string, string> => ({ TABLETOP_TOKEN: token, NODE_EXTRA_CA_CERTS: certs.caFile });

  it('applies a file, dumps it back, and refuses a destructive change on a non-terminal stdin unless --yes', async () => {
    const file = path.join(dir, 'schema.json');
    const schema = (families: object): string => JSON.stringify({ schema: 'tabletop/v1', tables: { orders: { families } } });
    writeFileSync(file, schema({ cf: { gc: 'maxversions=2' }, old: {} }));
    const created = await tabletop(['schema', 'apply', file, ...target()], env());
    expect(created.stderr).not.toMatch(/tabletop schema/);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(' + table orders: families cf (gc maxversions=2), old (gc never)');

    const dumped = await tabletop(['schema', 'dump', ...target()], env());
    expect(dumped.code).toBe(0);
    expect(JSON.parse(dumped.stdout)).toEqual({
      schema: 'tabletop/v1',
      tables: {
        orders: {
          families: { cf: { gc: 'maxversions=2' }, old: { gc: 'never' } },
          deletionProtection: false,
          splits: [],
          authorizedViews: {},
        },
      },
    });

    writeFileSync(file, schema({ cf: { gc: 'maxversions=1' } }));
    const refused = await tabletop(['schema', 'apply', file, ...target()], env());
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      '!~ table orders: family cf gc maxversions=2 -> maxversions=1 (collects cells the current rule keeps)',
    );
    expect(refused.stdout).toContain('!- table orders: family old (and all its data)');
    expect(refused.stderr).toContain('refusing 2 destructive changes without confirmation (stdin is not a terminal): run again with --yes');

    const applied = await tabletop(['schema', 'apply', file, ...target(), '--yes'], env());
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied 2 changes to projects/p/instances/i.');
    expect(JSON.parse((await tabletop(['schema', 'dump', ...target(), '--table', 'orders'], env())).stdout)).toMatchObject({
      table: 'orders',
      families: { cf: { gc: 'maxversions=1' } },
    });
  });

  it('without the token the server refuses, and the command says so', async () => {
    const r = await tabletop(['schema', 'dump', ...target()], { NODE_EXTRA_CA_CERTS: certs.caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tabletop schema dump: ListTables failed: UNAUTHENTICATED: /);
  });
});
