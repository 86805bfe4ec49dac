import { TabletopError } from '../../../model/errors.js';
import type { Authenticator } from '../authenticator.js';
import type { Principal } from '../principal.js';

/**
 * An Authenticator over a fixed map of bearer tokens to members, for tests: `Bearer <token>` of a known token
 * is its member (via a token whose id is the member), anything else given is UNAUTHENTICATED.
 */
export class MapAuthenticator implements Authenticator {
  private readonly principals: ReadonlyMap<string, Principal>;

  constructor(
    tokens: Readonly<Record<string, string>>,
    readonly required = true,
  ) {
    this.principals = new Map(
      Object.entries(tokens).map(([token, member]) => [token, { member, via: { kind: 'token', tokenId: member } }]),
    );
  }

  authenticate(authorization: string | undefined): Principal | undefined {
    if (authorization === undefined) return undefined;
    const m = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (m === null) throw new TabletopError('Unauthenticated', 'The authorization header is not "Bearer <token>"');
    const principal = this.principals.get(m[1]!);
    if (principal === undefined) throw new TabletopError('Unauthenticated', 'The bearer token is not valid');
    return principal;
  }
}
