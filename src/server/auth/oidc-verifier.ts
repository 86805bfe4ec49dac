import { type KeyObject, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TabletopError } from '../../model/errors.js';
import type { Principal } from './principal.js';
import { watchedFile } from './watched-file.js';

/**
 * Verifies Google-style OIDC identity tokens (JWTs, e.g. what
 * `gcloud auth print-identity-token` or a service account's metadata server
 * gives) against public keys in a JWKS file (`{"keys": [...]}`, as
 * https://www.googleapis.com/oauth2/v3/certs serves it; the file is re-read
 * when it changes, so keys can be rotated by replacing it).
 *
 * Checked: the signature (by the key the header's `kid` names, or the only
 * key), the algorithm (asymmetric ones only: RS*, PS*, ES*; never `none` or
 * HMAC), `exp` (required), `nbf`, `iss` and `aud`. The caller is the `email`
 * claim (which must not be marked unverified): `serviceAccount:<email>` for
 * a *.gserviceaccount.com address, else `user:<email>`.
 */
export interface OidcOptions {
  /** The JWKS file. */
  readonly jwksFile: string;
  /** The expected `iss`, e.g. https://accounts.google.com. */
  readonly issuer: string;
  /** The expected `aud`. */
  readonly audience: string;
}

export interface OidcVerifier {
  /** The caller a JWT proves; throws Unauthenticated (never quoting the token) otherwise. */
  verify(token: string): Principal;
}

const ALGORITHMS: jwt.Algorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

interface Jwks {
  readonly byKid: ReadonlyMap<string, KeyObject>;
  readonly all: readonly KeyObject[];
}

function parseJwks(text: string, file: string): Jwks {
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!Array.isArray(keys) || keys.length === 0)
    throw new Error(`${file} is not a JWKS file (expected {"keys": [ ...at least one key... ]})`);
  const byKid = new Map<string, KeyObject>();
  const all: KeyObject[] = [];
  for (const jwk of keys as { kid?: unknown; kty?: unknown }[]) {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
    } catch (e) {
      throw new Error(
        `${file}: key ${String(jwk.kid ?? all.length)} is not a usable public key: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    all.push(key);
    if (typeof jwk.kid === 'string') byKid.set(jwk.kid, key);
  }
  return { byKid, all };
}

export function oidcVerifier(opts: OidcOptions & { readonly now?: () => number; readonly onError?: (e: Error) => void }): OidcVerifier {
  const jwks = watchedFile({
    path: opts.jwksFile,
    parse: (text) => parseJwks(text, opts.jwksFile),
    missing: () => {
      throw new Error(`the JWKS file ${opts.jwksFile} does not exist`);
    },
    onError: opts.onError,
    now: opts.now,
  });
  const refuse = (why: string): TabletopError => new TabletopError('Unauthenticated', `The OIDC identity token was refused: ${why}`);
  return {
    verify(token: string): Principal {
      const decoded = jwt.decode(token, { complete: true });
      if (decoded === null || typeof decoded.payload === 'string') throw refuse('it is not a well-formed JWT');
      const keys = jwks.current();
      const kid = decoded.header.kid;
      const key = kid !== undefined ? keys.byKid.get(kid) : keys.all.length === 1 ? keys.all[0] : undefined;
      if (key === undefined)
        throw refuse(kid === undefined ? 'it names no key (kid) and the JWKS has several' : `its key "${kid}" is not in the JWKS file`);
      let payload: jwt.JwtPayload;
      try {
        const nowSeconds = opts.now === undefined ? undefined : Math.floor(opts.now() / 1000);
        payload = jwt.verify(token, key, {
          algorithms: ALGORITHMS,
          issuer: opts.issuer,
          audience: opts.audience,
          ...(nowSeconds === undefined ? {} : { clockTimestamp: nowSeconds }),
        }) as jwt.JwtPayload;
      } catch (e) {
        if (e instanceof jwt.TokenExpiredError) throw refuse(`it expired at ${e.expiredAt.toISOString()}`);
        if (e instanceof jwt.NotBeforeError) throw refuse(`it is not valid before ${e.date.toISOString()}`);
        throw refuse(e instanceof Error ? e.message : String(e));
      }
      if (typeof payload.exp !== 'number') throw refuse('it has no expiry (exp)');
      const email: unknown = payload['email'];
      if (typeof email !== 'string' || !email.includes('@'))
        throw refuse('it has no email claim (ask for an identity token with the email)');
      if (payload['email_verified'] === false) throw refuse(`its email ${email} is not verified`);
      const member = /\.gserviceaccount\.com$/i.test(email) ? `serviceAccount:${email}` : `user:${email}`;
      return { member, via: { kind: 'oidc', issuer: opts.issuer } };
    },
  };
}
