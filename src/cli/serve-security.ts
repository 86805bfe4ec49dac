import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { authFileOf } from '../server/auth/auth-file.js';
import type { Authenticator } from '../server/auth/authenticator.js';
import { AuthFileSource, credentialsAuthenticator } from '../server/auth/credentials-authenticator.js';
import type { ProjectPolicySource } from '../server/auth/project-policies.js';
import { type OidcVerifier, oidcVerifier } from '../server/auth/oidc-verifier.js';
import type { Logger } from '../server/logger.js';
import { isLoopbackOnly, openToNetworkWarning } from '../server/open-warning.js';
import type { TlsOptions } from '../server/tls-options.js';
import type { ServeSettings } from './serve-settings.js';

/** What `serve`'s security settings make: the TLS material, the authenticator, and a line for the start-up banner. */
export interface ServeSecurity {
  readonly tls: TlsOptions | undefined;
  readonly authenticator: Authenticator;
  /** The bootstrap grants of the auth file (`tabletop auth grant`), for the IAM checks; none without an auth file. */
  readonly projectPolicies: ProjectPolicySource | undefined;
  readonly describe: string;
}

/**
 * Reads the TLS files and the auth file, and refuses what is unsafe: a host
 * beyond loopback without authentication, unless --insecure. Throws an Error
 * whose message `serve` prints (exit 2).
 */
export async function serveSecurity(settings: ServeSettings, logger: Logger): Promise<ServeSecurity> {
  if (!settings.auth && !settings.insecure && !(await isLoopbackOnly(settings.host))) {
    const ports = settings.httpPort === undefined ? [settings.port] : [settings.port, settings.httpPort];
    throw new Error(
      `refusing to start: ${openToNetworkWarning(settings.host, ports)} Serve with --auth on (and --tls-cert/--tls-key), or pass --insecure to serve without authentication anyway.`,
    );
  }
  const tls =
    settings.tlsCert === undefined || settings.tlsKey === undefined
      ? undefined
      : {
          cert: readPem(settings.tlsCert, '--tls-cert'),
          key: readPem(settings.tlsKey, '--tls-key'),
          clientCa: settings.tlsClientCa === undefined ? undefined : readPem(settings.tlsClientCa, '--tls-client-ca'),
        };
  if (tls !== undefined) {
    try {
      createSecureContext({ cert: tls.cert, key: tls.key, ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa }) });
    } catch (e) {
      throw new Error(
        `--tls-cert ${settings.tlsCert} and --tls-key ${settings.tlsKey} cannot serve TLS: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  const onError = (what: string) => (e: Error) =>
    logger.warn(`${what} could not be re-read, the previous one stays in force: ${e.message}`, { event: 'auth-reload-failed' });
  const authFile = settings.authFile ?? (settings.inMemory ? undefined : authFileOf(settings.dataDir));
  let tokens: AuthFileSource | undefined;
  try {
    tokens = authFile === undefined ? undefined : new AuthFileSource(authFile, { onError: onError(`the auth file ${authFile}`) });
  } catch (e) {
    throw new Error(`cannot read the auth file: ${e instanceof Error ? e.message : String(e)}`);
  }
  let oidc: OidcVerifier | undefined;
  try {
    // The JWKS file is read now: a broken one stops the start rather than the first call.
    oidc =
      settings.oidcJwks === undefined || settings.oidcIssuer === undefined || settings.oidcAudience === undefined
        ? undefined
        : oidcVerifier({
            jwksFile: settings.oidcJwks,
            issuer: settings.oidcIssuer,
            audience: settings.oidcAudience,
            onError: onError(`the JWKS file ${settings.oidcJwks}`),
          });
  } catch (e) {
    throw new Error(`--oidc-jwks: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (settings.auth && tls === undefined)
    logger.warn('authentication is on without TLS: tokens cross the network in clear text (serve with --tls-cert and --tls-key)', {
      event: 'auth-without-tls',
    });
  const sources = [
    tokens === undefined ? undefined : `tokens in ${tokens.path}`,
    oidc === undefined ? undefined : `OIDC identity tokens from ${settings.oidcIssuer}`,
  ]
    .filter((s) => s !== undefined)
    .join(' and ');
  const describe = settings.auth
    ? `on (${sources}); every call needs credentials and is checked against the IAM policies`
    : `off (credentials are optional${sources === '' ? '' : `; ${sources} are checked when given`})`;
  return { tls, authenticator: credentialsAuthenticator({ required: settings.auth, tokens, oidc }), projectPolicies: tokens, describe };
}

function readPem(file: string, flag: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (e) {
    throw new Error(`${flag} ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!pem.includes('-----BEGIN ')) throw new Error(`${flag} ${file} is not a PEM file (it has no -----BEGIN line)`);
  return pem;
}
