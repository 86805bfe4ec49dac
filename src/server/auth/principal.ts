/**
 * Who makes a call: an IAM member, as policies name it
 * (`user:alice@example.com`, `serviceAccount:ci@p.iam.gserviceaccount.com`).
 * The authenticator (authenticator.ts) makes it from a call's credentials;
 * the authorizer checks it against the policies.
 */
export interface Principal {
  /** The IAM member: `user:…`, `serviceAccount:…`, `group:…` or `domain:…`. */
  readonly member: string;
  /** How it was proven: a tabletop token (its id, never the secret) or an OIDC identity token. */
  readonly via: { readonly kind: 'token'; readonly tokenId: string } | { readonly kind: 'oidc'; readonly issuer: string };
}
