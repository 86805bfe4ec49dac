import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCertificates, makeTestCertificates } from '../../src/server/testing/test-certificates.js';
import { tlsNodeClient } from '../../src/server/testing/tls-clients.js';
import { type GuardedChild, spawnGuarded, stopGuarded } from '../harness/guarded-child.js';
import { REPO_ROOT, TABLETOP_MAIN, type Target, capture, startTabletop, waitForOutput } from '../harness/targets.js';
import { nodeClient } from '../harness/node-client.js';
import { createTable, fillTable, readTable, runTabletop, tablePath } from './tables.js';

/**
 * `tabletop copy` and `export` against a tabletop with TLS and authentication on (a real process), as against Cloud
 * Bigtable: grpcs:// with the server's CA, TABLETOP_TOKEN as the bearer token; without a token, refused with what to set.
 */
let certs: TestCertificates;
let dataDir: string;
let secure: { child: GuardedChild; address: string };
let plain: Target;
let token: string;
let secureClient: Bigtable;
let plainClient: Bigtable;

beforeAll(async () => {
  certs = makeTestCertificates();
  dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-copy-tls-'));
  expect(
    (await runTabletop(['auth', 'grant', '--member', 'user:mover@example.com', '--role', 'roles/bigtable.admin', '--data-dir', dataDir]))
      .code,
  ).toBe(0);
  token = (await runTabletop(['auth', 'create-token', '--member', 'user:mover@example.com', '--data-dir', dataDir])).stdout.trim();
  const child = spawnGuarded(
    process.execPath,
    [
      TABLETOP_MAIN,
      'serve',
      '--port',
      '0',
      '--http-port',
      '0',
      '--data-dir',
      dataDir,
      '--tls-cert',
      certs.serverCertFile,
      '--tls-key',
      certs.serverKeyFile,
      '--auth',
      'on',
    ],
    { cwd: REPO_ROOT },
  );
  const match = await waitForOutput(child, capture(child), 'tabletop', /gRPC: grpcs:\/\/(\S+) \(TLS/);
  secure = { child, address: match[1]! };
  plain = await startTabletop();
  secureClient = tlsNodeClient({ endpoint: secure.address, ca: certs.ca, token: () => token });
  plainClient = nodeClient(plain);
  await createTable(secureClient, 'src');
  await fillTable(secureClient, 'src', 300);
}, 60_000);

afterAll(async () => {
  await Promise.all([secureClient?.close(), plainClient?.close()]);
  if (secure !== undefined) await stopGuarded(secure.child);
  await plain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('tabletop copy and export over TLS with a token', () => {
  it('copies from a TLS server with authentication to a plain one, equal row by row', async () => {
    const env = { TABLETOP_TOKEN: token, TABLETOP_CA_FILE: certs.caFile };
    const run = await runTabletop(
      ['copy', '--from', `grpcs://${secure.address}/${tablePath('src')}`, '--to', `${plain.address}/${tablePath('dst')}`],
      {
        cwd: dataDir,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('verified');
    expect(await readTable(plainClient, 'dst')).toEqual(await readTable(secureClient, 'src'));
  }, 60_000);

  it('is refused without a token, and says to set TABLETOP_TOKEN', async () => {
    const run = await runTabletop(['export', `grpcs://${secure.address}/${tablePath('src')}`], { env: { TABLETOP_CA_FILE: certs.caFile } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/UNAUTHENTICATED.*set TABLETOP_TOKEN/);
  }, 30_000);
});
