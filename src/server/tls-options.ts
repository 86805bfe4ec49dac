/**
 * TLS for both servers (gRPC and HTTP): PEM-encoded, as read from the files
 * `serve --tls-cert/--tls-key/--tls-client-ca` name.
 */
export interface TlsOptions {
  /** The server's certificate chain (PEM). */
  readonly cert: Buffer;
  /** Its private key (PEM). */
  readonly key: Buffer;
  /** Mutual TLS: clients must present a certificate that chains to this CA (PEM); undefined: no client certificates asked for. */
  readonly clientCa?: Buffer | undefined;
}
