import { TabletopError } from '../../model/errors.js';
import type { IamBinding } from '../../db/api.js';
import { type AuthState, EMPTY_AUTH_STATE, parseAuthState, parseToken, secretMatches } from './auth-file.js';
import type { Authenticator } from './authenticator.js';
import type { OidcVerifier } from './oidc-verifier.js';
import type { Principal } from './principal.js';
import type { ProjectPolicySource } from './project-policies.js';
import { watchedFile } from './watched-file.js';

/** The auth file (auth-file.ts) as the server sees it: re-read within a second of a change; its grants are the project-level bindings. */
export class AuthFileSource implements ProjectPolicySource {
  private readonly file;

  constructor(
    readonly path: string,
    opts: { readonly now?: (() => number) | undefined; readonly onError?: ((e: Error) => void) | undefined } = {},
  ) {
    this.file = watchedFile<AuthState>({
      path,
      parse: (text) => parseAuthState(text, path),
      missing: () => EMPTY_AUTH_STATE,
      now: opts.now,
      onError: opts.onError,
    });
  }

  state(): AuthState {
    return this.file.current();
  }

  bindings(project: string): readonly IamBinding[] {
    return this.state()
      .bindings.filter((b) => b.project === project || b.project === '*')
      .map((b) => ({ role: b.role, members: b.members }));
  }
}

export interface CredentialsAuthenticatorOptions {
  /** Authentication on: calls without credentials are refused (Authenticator.required). */
  readonly required: boolean;
  /** Where tabletop tokens are; none: no tokens are accepted. */
  readonly tokens?: AuthFileSource | undefined;
  /** OIDC identity tokens (JWTs); none: JWTs are refused. */
  readonly oidc?: OidcVerifier | undefined;
  /** Milliseconds since the epoch (tests give a fake clock). */
  readonly now?: (() => number) | undefined;
}

/**
 * The Authenticator of `serve`: `authorization: Bearer <credential>`, where
 * the credential is a tabletop token (`tt_<id>.<secret>`) or, with OIDC
 * configured, a JWT. Errors say what is wrong and name at most the token's
 * id, never its secret nor the header's value.
 */
export function credentialsAuthenticator(opts: CredentialsAuthenticatorOptions): Authenticator {
  const now = opts.now ?? Date.now;
  const refuse = (message: string): TabletopError => new TabletopError('Unauthenticated', message);
  return {
    required: opts.required,
    authenticate(authorization: string | undefined): Principal | undefined {
      if (authorization === undefined) return undefined;
      const m = /^Bearer +(\S+) *$/i.exec(authorization);
      if (m === null) throw refuse('The authorization header is malformed: send "authorization: Bearer <token>"');
      const credential = m[1]!;
      const token = parseToken(credential);
      if (token !== undefined) {
        if (opts.tokens === undefined) throw refuse('This server accepts no tabletop tokens (it has no auth file)');
        const stored = opts.tokens.state().tokens.find((t) => t.id === token.id);
        if (stored === undefined || !secretMatches(stored, token.secret))
          throw refuse(`Token tt_${token.id} is not valid: unknown or revoked (tabletop auth list-tokens shows the valid ones)`);
        if (stored.expires !== undefined && Date.parse(stored.expires) <= now())
          throw refuse(`Token tt_${token.id} expired at ${stored.expires}: create a new one (tabletop auth create-token)`);
        return { member: stored.member, via: { kind: 'token', tokenId: stored.id } };
      }
      if (credential.split('.').length === 3) {
        if (opts.oidc === undefined) throw refuse('This server accepts no OIDC identity tokens (serve --oidc-jwks ... turns them on)');
        return opts.oidc.verify(credential);
      }
      throw refuse('The bearer credential is neither a tabletop token (tt_<id>.<secret>) nor a JWT');
    },
  };
}
