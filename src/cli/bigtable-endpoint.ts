import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { v2 } from '@google-cloud/bigtable';
import { grpc } from 'google-gax';

/**
 * Where `tabletop copy`, `export` and `import` find a table: a table spec
 *
 *   [grpcs://]HOST:PORT/projects/P/instances/I/tables/T   a server (tabletop, cbtemulator): plain text, or TLS with grpcs://
 *   projects/P/instances/I/tables/T                       BIGTABLE_EMULATOR_HOST if set, else Cloud Bigtable
 *
 * Plain-text endpoints are what BIGTABLE_EMULATOR_HOST gives clients. Over TLS the server's certificate is checked
 * against the system's roots, or the CA in TABLETOP_CA_FILE (else NODE_EXTRA_CA_CERTS, as the HTTP commands read it). TABLETOP_TOKEN, when
 * set, goes on every call over TLS as `authorization: Bearer` (a tabletop with --auth on), as the other commands send it.
 * Cloud Bigtable uses application-default credentials (gcloud auth application-default login, or
 * GOOGLE_APPLICATION_CREDENTIALS). The clients are the official client's generated v2 clients (@google-cloud/bigtable).
 */
export interface TableSpec {
  /** host:port, or undefined for Cloud Bigtable. */
  readonly endpoint: string | undefined;
  readonly tls: boolean;
  readonly project: string;
  readonly instance: string;
  readonly table: string;
}

export class TableSpecError extends Error {}

const NAME = /^projects\/([^/]+)\/instances\/([^/]+)\/tables\/([^/]+)$/;

/** Parses a table spec (see above); `env` supplies BIGTABLE_EMULATOR_HOST. */
export function parseTableSpec(spec: string, env: Readonly<Record<string, string | undefined>> = {}): TableSpec {
  let rest = spec.trim();
  let tls = false;
  const scheme = /^(grpcs?):\/\//.exec(rest);
  if (scheme !== null) {
    tls = scheme[1] === 'grpcs';
    rest = rest.slice(scheme[0].length);
  }
  let endpoint: string | undefined;
  if (!rest.startsWith('projects/')) {
    const slash = rest.indexOf('/');
    endpoint = slash < 0 ? rest : rest.slice(0, slash);
    rest = slash < 0 ? '' : rest.slice(slash + 1);
    if (!/^[^:/\s]+:\d+$/.test(endpoint) && !/^\[[^\]]+\]:\d+$/.test(endpoint))
      throw new TableSpecError(`"${spec}": the endpoint must be HOST:PORT (e.g. localhost:8086/projects/p/instances/i/tables/t)`);
  } else if (scheme === null) {
    const host = env['BIGTABLE_EMULATOR_HOST'];
    endpoint = host === undefined || host === '' ? undefined : host;
  }
  const m = NAME.exec(rest);
  if (m === null) throw new TableSpecError(`"${spec}": give a table as [HOST:PORT/]projects/P/instances/I/tables/T`);
  return { endpoint, tls, project: m[1]!, instance: m[2]!, table: m[3]! };
}

export function tableName(t: TableSpec): string {
  return `projects/${t.project}/instances/${t.instance}/tables/${t.table}`;
}

/** A spec as people read it, for progress and summaries. */
export function describeSpec(t: TableSpec): string {
  return `${t.endpoint === undefined ? 'Cloud Bigtable' : `${t.tls ? 'grpcs://' : ''}${t.endpoint}`}/${tableName(t)}`;
}

export interface Connection {
  readonly spec: TableSpec;
  readonly name: string;
  readonly data: v2.BigtableClient;
  readonly admin: v2.BigtableTableAdminClient;
  close(): Promise<void>;
}

/** Clients of the table's server. */
export function connect(spec: TableSpec, env: Readonly<Record<string, string | undefined>> = {}): Connection {
  // google-auth-library probes the GCE metadata server (with a warning) even for a plain-text endpoint that needs no
  // credentials; only Cloud Bigtable needs application-default credentials.
  if (spec.endpoint !== undefined) process.env['METADATA_SERVER_DETECTION'] ??= 'none';
  const options = clientOptions(spec, env);
  const data = new v2.BigtableClient(options);
  const admin = new v2.BigtableTableAdminClient(options);
  return {
    spec,
    name: tableName(spec),
    data,
    admin,
    async close() {
      await Promise.all([data.close(), admin.close()]);
    },
  };
}

function clientOptions(spec: TableSpec, env: Readonly<Record<string, string | undefined>>): Record<string, string | number | object> {
  if (spec.endpoint === undefined) return { projectId: spec.project };
  const colon = spec.endpoint.lastIndexOf(':');
  const host = spec.endpoint.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(spec.endpoint.slice(colon + 1));
  const token = nonEmpty(env['TABLETOP_TOKEN']);
  let channel: grpc.ChannelCredentials;
  if (spec.tls) {
    const caFile = nonEmpty(env['TABLETOP_CA_FILE']) ?? nonEmpty(env['NODE_EXTRA_CA_CERTS']);
    // A CA given is trusted besides the system's (grpc-js would otherwise trust it alone), as `tabletop schema` does.
    channel = grpc.credentials.createSsl(
      caFile === undefined ? null : Buffer.concat([Buffer.from(rootCertificates.join('\n') + '\n'), readFileSync(caFile)]),
    );
    if (token !== undefined) channel = grpc.credentials.combineChannelCredentials(channel, bearer(token));
  } else {
    channel = grpc.credentials.createInsecure();
  }
  const options: Record<string, string | number | object> = { servicePath: host, port, sslCreds: channel, projectId: spec.project };
  // The token rides only over TLS (grpc-js sends call credentials on secure channels only): in plain text it would go
  // in the clear, and to servers that may not be the one it was made for (the other side of a copy).
  return options;
}

function bearer(token: string): grpc.CallCredentials {
  return grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    callback(null, metadata);
  });
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/**
 * Resolves once the table's server accepts a connection; rejects (UNAVAILABLE, naming the address) if it does not
 * within `millis`. Without it a wrong address shows only after the client's own retries (over a minute for an admin call).
 */
export async function reachable(conn: Connection, millis = 10_000): Promise<void> {
  const stub = (await conn.data.initialize()) as unknown as { waitForReady?: (deadline: Date, cb: (e?: Error) => void) => void };
  if (typeof stub.waitForReady !== 'function') return;
  await new Promise<void>((resolve, reject) =>
    stub.waitForReady!(new Date(Date.now() + millis), (e) =>
      e === undefined || e === null
        ? resolve()
        : reject(Object.assign(new Error(`cannot reach ${describeSpec(conn.spec)} within ${millis / 1000} s`), { code: 14 })),
    ),
  );
}

/** What a failed call says to the user, with what to check for a refused or unreachable server. */
export function explainFailure(e: unknown, env: Readonly<Record<string, string | undefined>> = {}): string {
  const message = e instanceof Error ? e.message : String(e);
  const code = (e as { code?: unknown }).code;
  if (code === 16 && nonEmpty(env['TABLETOP_TOKEN']) === undefined)
    return `${message} (set TABLETOP_TOKEN to a token: tabletop auth create-token)`;
  if (code === 14) return `${message} (is the server running at that address, and does it speak TLS only if the table spec says grpcs://?)`;
  return message;
}
