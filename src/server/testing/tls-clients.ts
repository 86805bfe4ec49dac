import { Bigtable } from '@google-cloud/bigtable';
import { grpc } from 'google-gax';

// google-auth-library would probe the GCE metadata server; tests never run on GCE.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

/**
 * The official Node client over TLS, as the README tells users to connect
 * it: the client's own grpc-js (google-gax's) makes channel credentials
 * that trust `ca` (and present a client certificate for mutual TLS),
 * combined with call credentials that send `authorization: Bearer <token>`.
 */
export function tlsNodeClient(opts: {
  readonly endpoint: string;
  readonly ca: Buffer;
  readonly token?: () => string | undefined;
  readonly clientCert?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly projectId?: string;
}): Bigtable {
  const ssl =
    opts.clientCert === undefined
      ? grpc.credentials.createSsl(opts.ca)
      : grpc.credentials.createSsl(opts.ca, opts.clientCert.key, opts.clientCert.cert);
  const bearer = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    const token = opts.token?.();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    callback(null, metadata);
  });
  // sslCreds reaches google-gax (the typings of BigtableOptions do not list it, hence the variable).
  const options = {
    projectId: opts.projectId ?? 'p',
    apiEndpoint: opts.endpoint,
    sslCreds: grpc.credentials.combineChannelCredentials(ssl, bearer),
    metricsEnabled: false,
  };
  return new Bigtable(options);
}

/** The official Node client in plain text (what BIGTABLE_EMULATOR_HOST gives), with an optional bearer header on every call. */
export function plainNodeClient(endpoint: string): Bigtable {
  return new Bigtable({ projectId: 'p', apiEndpoint: endpoint, metricsEnabled: false });
}
