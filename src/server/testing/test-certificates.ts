import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Certificates for TLS tests, made by the `openssl` command (as an operator
 * would): a CA, a server certificate for localhost, 127.0.0.1 and ::1 signed
 * by it, and a client certificate signed by it (mutual TLS). A second CA,
 * unrelated, stands for "the wrong CA". EC P-256 keys, valid for a day.
 */
export interface TestCertificates {
  readonly dir: string;
  /** File paths and their PEM contents. */
  readonly caFile: string;
  readonly ca: Buffer;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly serverCert: Buffer;
  readonly serverKey: Buffer;
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
  /** A CA that signed nothing here, and a client certificate it signed. */
  readonly otherCaFile: string;
  readonly otherCa: Buffer;
  readonly otherClientCert: Buffer;
  readonly otherClientKey: Buffer;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, ['req', '-x509', '-new', '-key', `${name}.key`, '-out', `${name}.pem`, '-days', '1', '-subj', `/CN=tabletop test ${name}`]);
}

function makeLeaf(dir: string, ca: string, name: string, extensions: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
  ]);
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'tabletop-tls-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  makeLeaf(dir, 'ca', 'server', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n');
  makeLeaf(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  makeLeaf(dir, 'other-ca', 'other-client', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string): Buffer => readFileSync(join(dir, f));
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: read('ca.pem'),
    serverCertFile: join(dir, 'server.pem'),
    serverKeyFile: join(dir, 'server.key'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    otherCaFile: join(dir, 'other-ca.pem'),
    otherCa: read('other-ca.pem'),
    otherClientCert: read('other-client.pem'),
    otherClientKey: read('other-client.key'),
  };
}
