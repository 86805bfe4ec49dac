import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { beforeEach, describe, expect, it } from 'vitest';
import { newToken, updateAuthState, withGrant, writeAuthState } from './auth-file.js';
import { AuthFileSource, credentialsAuthenticator } from './credentials-authenticator.js';
import { oidcVerifier } from './oidc-verifier.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'tabletop-authn-'));

/** Unauthenticated's message, or 'ok'. */
function outcome(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    expect((e as { code?: string }).code).toBe('Unauthenticated');
    return (e as Error).message;
  }
}

describe('tabletop tokens', () => {
  let file: string;
  let now: number;
  beforeEach(() => {
    file = join(dir(), 'auth.json');
    now = Date.parse('2026-01-01T00:00:00Z');
  });

  it('proves the member of a stored token; no header is anonymous; the secret appears in no message', () => {
    const { token, stored } = newToken('user:alice@example.com', { now: new Date(now) });
    writeAuthState(file, { tokens: [stored], bindings: [] });
    const authn = credentialsAuthenticator({ required: true, tokens: new AuthFileSource(file), now: () => now });
    expect(authn.authenticate(`Bearer ${token}`)).toEqual({ member: 'user:alice@example.com', via: { kind: 'token', tokenId: stored.id } });
    expect(authn.authenticate(`bearer   ${token}`)?.member).toBe('user:alice@example.com');
    expect(authn.authenticate(undefined)).toBeUndefined();
    const secret = token.slice(token.indexOf('.') + 1);
    const wrongSecret = `${token.slice(0, token.indexOf('.') + 1)}${secret.slice(1)}x`;
    for (const [header, message] of [
      [wrongSecret, `Token tt_${stored.id} is not valid: unknown or revoked`],
      [`Basic ${token}`, 'The authorization header is malformed'],
      ['Bearer', 'The authorization header is malformed'],
      [`Bearer ${token} extra`, 'The authorization header is malformed'],
      ['Bearer tt_nothex.abc', 'neither a tabletop token'],
    ]) {
      const got = outcome(() => authn.authenticate(header!.startsWith('tt_') ? `Bearer ${header}` : header));
      expect(got).toContain(message);
      expect(got).not.toContain(secret);
    }
  });

  it('refuses an expired token, saying when it expired', () => {
    const { token, stored } = newToken('user:bob@example.com', { now: new Date(now), expires: new Date(now + 60_000) });
    writeAuthState(file, { tokens: [stored], bindings: [] });
    const authn = credentialsAuthenticator({ required: false, tokens: new AuthFileSource(file, { now: () => now }), now: () => now });
    expect(outcome(() => authn.authenticate(`Bearer ${token}`))).toBe('ok');
    now += 60_000;
    expect(outcome(() => authn.authenticate(`Bearer ${token}`))).toMatch(/expired at 2026-01-01T00:01:00.000Z/);
  });

  it('follows the file: a revoked token stops working once a second has passed, a new one starts to', () => {
    const alice = newToken('user:alice@example.com', { now: new Date(now) });
    writeAuthState(file, { tokens: [alice.stored], bindings: [] });
    const source = new AuthFileSource(file, { now: () => now });
    const authn = credentialsAuthenticator({ required: true, tokens: source, now: () => now });
    expect(outcome(() => authn.authenticate(`Bearer ${alice.token}`))).toBe('ok');
    const bob = newToken('user:bob@example.com', { now: new Date(now) });
    writeAuthState(file, { tokens: [bob.stored], bindings: [] });
    // Within the second the old state holds (the file is looked at at most once a second).
    now += 500;
    expect(outcome(() => authn.authenticate(`Bearer ${alice.token}`))).toBe('ok');
    now += 500;
    expect(outcome(() => authn.authenticate(`Bearer ${alice.token}`))).toMatch(/unknown or revoked/);
    expect(authn.authenticate(`Bearer ${bob.token}`)?.member).toBe('user:bob@example.com');
  });

  it('keeps the last good state when the file is broken, and tells once', () => {
    const alice = newToken('user:alice@example.com', { now: new Date(now) });
    writeAuthState(file, { tokens: [alice.stored], bindings: [] });
    const errors: string[] = [];
    const source = new AuthFileSource(file, { now: () => now, onError: (e) => errors.push(e.message) });
    writeFileSync(file, '{"tokens": [');
    now += 1000;
    expect(source.state().tokens).toHaveLength(1);
    now += 1000;
    expect(source.state().tokens).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('is not valid JSON');
  });

  it('gives the project bindings of a project and of every project', () => {
    updateAuthState(file, (s) =>
      withGrant(withGrant(s, '*', 'bigtable.admin', 'user:root@example.com'), 'p', 'roles/bigtable.reader', 'group:r@example.com'),
    );
    const source = new AuthFileSource(file);
    expect(source.bindings('p')).toEqual([
      { role: 'roles/bigtable.admin', members: ['user:root@example.com'] },
      { role: 'roles/bigtable.reader', members: ['group:r@example.com'] },
    ]);
    expect(source.bindings('q')).toEqual([{ role: 'roles/bigtable.admin', members: ['user:root@example.com'] }]);
  });
});

describe('OIDC identity tokens', () => {
  const ISSUER = 'https://accounts.google.com';
  const AUDIENCE = 'tabletop-test';
  let keys: { kid: string; privateKey: KeyObject }[];
  let jwksFile: string;
  let now: number;

  beforeEach(() => {
    now = Date.parse('2026-01-01T00:00:00Z');
    keys = ['k1', 'k2'].map((kid) => ({ kid, ...generateKeyPairSync('rsa', { modulusLength: 2048 }) }));
    jwksFile = join(dir(), 'jwks.json');
    const jwks = keys.map(({ kid, privateKey }) => ({ ...privateKeyToPublicJwk(privateKey), kid, alg: 'RS256', use: 'sig' }));
    writeFileSync(jwksFile, JSON.stringify({ keys: jwks }));
  });

  function privateKeyToPublicJwk(privateKey: KeyObject): object {
    return (privateKey as KeyObject & { export(o: { format: 'jwk' }): object }).export({ format: 'jwk' }) as object;
  }

  function sign(claims: object, opts: { kid?: string; key?: KeyObject | string; algorithm?: jwt.Algorithm } = {}): string {
    const iat = Math.floor(now / 1000);
    // A claim given as undefined is left out.
    const payload = Object.fromEntries(
      Object.entries({ iss: ISSUER, aud: AUDIENCE, iat, exp: iat + 3600, ...claims }).filter(([, v]) => v !== undefined),
    );
    return jwt.sign(payload, opts.key ?? keys[0]!.privateKey, {
      algorithm: opts.algorithm ?? 'RS256',
      ...(opts.kid === undefined && opts.key === undefined ? { keyid: 'k1' } : opts.kid === undefined ? {} : { keyid: opts.kid }),
    });
  }

  const authn = () =>
    credentialsAuthenticator({
      required: true,
      oidc: oidcVerifier({ jwksFile, issuer: ISSUER, audience: AUDIENCE, now: () => now }),
      now: () => now,
    });

  it('maps a service account email to serviceAccount: and any other to user:', () => {
    expect(authn().authenticate(`Bearer ${sign({ email: 'ci@p.iam.gserviceaccount.com' })}`)).toEqual({
      member: 'serviceAccount:ci@p.iam.gserviceaccount.com',
      via: { kind: 'oidc', issuer: ISSUER },
    });
    expect(
      authn().authenticate(`Bearer ${sign({ email: 'alice@example.com', email_verified: true }, { kid: 'k2', key: keys[1]!.privateKey })}`)
        ?.member,
    ).toBe('user:alice@example.com');
  });

  it('refuses a bad signature, an unknown key, a wrong issuer or audience, expiry, nbf, no exp, no email, HMAC and none', () => {
    const a = authn();
    const hs = jwt.sign({ iss: ISSUER, aud: AUDIENCE, exp: Math.floor(now / 1000) + 60, email: 'a@example.com' }, 'shared-secret', {
      algorithm: 'HS256',
      keyid: 'k1',
    });
    const none = jwt.sign({ iss: ISSUER, aud: AUDIENCE, exp: Math.floor(now / 1000) + 60, email: 'a@example.com' }, '', {
      algorithm: 'none',
      keyid: 'k1',
    } as jwt.SignOptions);
    const signedByK2ClaimingK1 = sign({ email: 'a@example.com' }, { kid: 'k1', key: keys[1]!.privateKey });
    const iat = Math.floor(now / 1000);
    const cases: [string, RegExp][] = [
      [signedByK2ClaimingK1, /invalid signature/],
      [sign({ email: 'a@example.com' }, { kid: 'k9', key: keys[0]!.privateKey }), /key "k9" is not in the JWKS file/],
      [sign({ email: 'a@example.com', iss: 'https://evil.example' }), /jwt issuer invalid/],
      [sign({ email: 'a@example.com', aud: 'someone-else' }), /jwt audience invalid/],
      [sign({ email: 'a@example.com', iat: iat - 7200, exp: iat - 3600 }), /expired at 2025-12-31T23:00:00.000Z/],
      [sign({ email: 'a@example.com', nbf: iat + 600 }), /not valid before/],
      [sign({ email: 'a@example.com', exp: undefined }), /no expiry/],
      [sign({ sub: '1234' }), /no email claim/],
      [sign({ email: 'a@example.com', email_verified: false }), /not verified/],
      [hs, /invalid algorithm/],
      [none, /jwt signature is required|invalid algorithm/],
      ['a.b.c', /not a well-formed JWT/],
    ];
    for (const [token, message] of cases) {
      const got = outcome(() => a.authenticate(`Bearer ${token}`));
      expect([token.slice(0, 12), got]).toEqual([token.slice(0, 12), expect.stringMatching(message)]);
      const signature = token.split('.')[2]!;
      if (signature !== '') expect(got).not.toContain(signature);
    }
  });

  it('refuses JWTs when no JWKS is configured, and tokens when there is no auth file', () => {
    const a = credentialsAuthenticator({ required: true });
    expect(outcome(() => a.authenticate(`Bearer ${sign({ email: 'a@example.com' })}`))).toMatch(/accepts no OIDC identity tokens/);
    expect(outcome(() => a.authenticate(`Bearer tt_0123456789abcdef.${'A'.repeat(43)}`))).toMatch(/accepts no tabletop tokens/);
  });
});
