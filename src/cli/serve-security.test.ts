import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestCertificates, makeTestCertificates } from '../server/testing/test-certificates.js';
import { memoryLogger } from '../testing/memory-logger.js';
import { type Layer, type RawValue, resolveServeSettings } from './serve-settings.js';
import { serveSecurity } from './serve-security.js';

const settings = (values: Record<string, RawValue>) =>
  resolveServeSettings([{ describe: (s) => `--${s}`, values: new Map(Object.entries({ 'in-memory': true, ...values })) } satisfies Layer]);

let certs: TestCertificates;
beforeAll(() => {
  certs = makeTestCertificates();
});

describe('serveSecurity', () => {
  it('reads the TLS files and describes what is on', async () => {
    const log = memoryLogger();
    const s = await serveSecurity(
      settings({ 'tls-cert': certs.serverCertFile, 'tls-key': certs.serverKeyFile, 'tls-client-ca': certs.caFile }),
      log,
    );
    expect(s.tls?.cert.equals(certs.serverCert)).toBe(true);
    expect(s.tls?.clientCa?.equals(certs.ca)).toBe(true);
    expect(s.authenticator.required).toBe(false);
    expect(s.describe).toBe('off (credentials are optional)');
    expect(log.records).toEqual([]);
  });

  it('refuses a key that does not go with the certificate, and a file that is not PEM, naming the flags', async () => {
    await expect(
      serveSecurity(settings({ 'tls-cert': certs.serverCertFile, 'tls-key': join(certs.dir, 'client.key') }), memoryLogger()),
    ).rejects.toThrow(/--tls-cert .* and --tls-key .* cannot serve TLS: .*key values mismatch/);
    const notPem = join(certs.dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    await expect(serveSecurity(settings({ 'tls-cert': notPem, 'tls-key': certs.serverKeyFile }), memoryLogger())).rejects.toThrow(
      `--tls-cert ${notPem} is not a PEM file`,
    );
    await expect(
      serveSecurity(settings({ 'tls-cert': join(certs.dir, 'missing.pem'), 'tls-key': certs.serverKeyFile }), memoryLogger()),
    ).rejects.toThrow(/--tls-cert .*missing\.pem: ENOENT/);
  });

  it('refuses a host beyond loopback without authentication, unless --insecure', async () => {
    await expect(serveSecurity(settings({ host: '0.0.0.0' }), memoryLogger())).rejects.toThrow(
      /^refusing to start: listening on 0\.0\.0\.0/,
    );
    await expect(serveSecurity(settings({ host: '0.0.0.0', insecure: true }), memoryLogger())).resolves.toBeDefined();
    const authFile = join(certs.dir, 'auth.json');
    const on = await serveSecurity(settings({ host: '0.0.0.0', auth: 'on', 'auth-file': authFile }), memoryLogger());
    expect(on.authenticator.required).toBe(true);
    expect(on.projectPolicies?.bindings('p')).toEqual([]);
  });

  it('warns when authentication is on without TLS (tokens in clear text)', async () => {
    const log = memoryLogger();
    const s = await serveSecurity(settings({ auth: 'on', 'auth-file': join(certs.dir, 'auth2.json') }), log);
    expect(s.describe).toMatch(/^on \(tokens in .*auth2\.json\); every call needs credentials/);
    expect(log.lines).toEqual([
      'warn: authentication is on without TLS: tokens cross the network in clear text (serve with --tls-cert and --tls-key)',
    ]);
  });

  it('stops at a broken JWKS file', async () => {
    const jwks = join(certs.dir, 'jwks.json');
    writeFileSync(jwks, '{"keys": []}');
    await expect(
      serveSecurity(settings({ auth: 'on', 'oidc-jwks': jwks, 'oidc-issuer': 'iss', 'oidc-audience': 'aud' }), memoryLogger()),
    ).rejects.toThrow(/^--oidc-jwks: .* is not a JWKS file/);
  });
});
