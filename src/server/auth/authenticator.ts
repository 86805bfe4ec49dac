import type { Principal } from './principal.js';

/**
 * Turns a call's credentials into its caller. The gRPC access check
 * (access-check.ts) and the HTTP server ask it with the `authorization`
 * header's value (`Bearer <token>`: a tabletop token, or an OIDC identity
 * token when a JWKS is configured).
 *
 * Synchronous: it runs at the start of every call, before the handler.
 */
export interface Authenticator {
  /**
   * True (authentication on): a call without valid credentials is refused
   * UNAUTHENTICATED, and every call is checked against the IAM policies.
   * False (the default on loopback, as an emulator): credentials are
   * optional, checked when given, and nothing is refused for permissions.
   */
  readonly required: boolean;
  /**
   * The caller that `authorization` (the header's value) proves; undefined
   * when there is no header. Throws a TabletopError Unauthenticated for
   * credentials that are given but not valid (malformed, unknown, revoked or
   * expired token; a JWT with a bad signature, issuer, audience or expiry),
   * whether or not authentication is required. The message never contains
   * the secret.
   */
  authenticate(authorization: string | undefined): Principal | undefined;
}

/** Authentication off, no credentials known: every call is anonymous (what the tests and `open()` use by default). */
export const NO_AUTHENTICATION: Authenticator = Object.freeze({
  required: false,
  authenticate: (): undefined => undefined,
});
