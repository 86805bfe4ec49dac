import { Bigtable } from '@google-cloud/bigtable';
import { rootCertificates } from 'node:tls';
import { grpc } from 'google-gax';
import { fromBytes, toBytes } from '../model/bytes.js';
import { gcRuleFromProto, gcRuleToProto } from '../server/convert/gc-rule.js';
import { subsetViewFromProto, subsetViewToProto } from '../server/convert/authorized-view.js';
import { valueTypeFromProto, valueTypeToProto } from '../server/convert/value-type.js';
import type { Change } from './schema-diff.js';
import type { FamilySchema, TableSchema, ViewSchema } from './schema-file.js';

/**
 * A Bigtable API endpoint that `tabletop schema` talks to through the official Node client's generated Table Admin
 * client (and its SampleRowKeys), so that it works against tabletop, Google's emulator and Cloud Bigtable alike:
 *  - `host:port`: plain text (what BIGTABLE_EMULATOR_HOST gives; the default is that variable, else localhost:8086);
 *  - `grpcs://host:port`: TLS, trusting the system's CAs and NODE_EXTRA_CA_CERTS, sending TABLETOP_TOKEN as
 *    `authorization: Bearer` when it is set;
 *  - `cloud`: Cloud Bigtable itself, with application-default credentials.
 */
export interface Endpoint {
  readonly address: string;
  readonly project: string;
  readonly instance: string;
  readonly token?: string | undefined;
  /** PEM CAs trusted besides the system's (the file NODE_EXTRA_CA_CERTS names: grpc-js does not read it itself). */
  readonly extraCa?: Buffer | undefined;
}

type AdminClient = ReturnType<Bigtable['admin']['getTableAdminClient']>;

/** Thrown when a server refuses a call; the message has the call and the server's words. */
export class ServerCallError extends Error {}

export class SchemaServer {
  private readonly bigtable: Bigtable;
  private readonly admin: AdminClient;
  readonly parent: string;

  /** `missingInstanceIsEmpty`: an instance that does not exist has no tables (apply), rather than NOT_FOUND (dump). */
  constructor(
    private readonly endpoint: Endpoint,
    private readonly missingInstanceIsEmpty = false,
  ) {
    this.bigtable = new Bigtable(clientOptions(endpoint));
    this.admin = this.bigtable.admin.getTableAdminClient();
    this.parent = `projects/${endpoint.project}/instances/${endpoint.instance}`;
  }

  close(): Promise<unknown> {
    return Promise.all([this.admin.close(), this.bigtable.close()]);
  }

  /** The tables of the instance (only `only` when given), with their families, protection, splits and views. */
  async readSchema(only?: string): Promise<Map<string, TableSchema>> {
    const ids = only === undefined ? await this.tableIds() : [only];
    const out = new Map<string, TableSchema>();
    for (const id of ids.sort()) {
      const table = await this.readTable(id);
      if (table !== undefined) out.set(id, table);
    }
    return out;
  }

  /** The ids of the instance's tables; none when the instance does not exist (tabletop creates it with a table). */
  private async tableIds(): Promise<string[]> {
    try {
      const [tables] = await this.admin.listTables({ parent: this.parent, view: 'NAME_ONLY' }, FIRST_CALL);
      return tables.map((t) => lastSegment(t.name ?? ''));
    } catch (e) {
      if (grpcCode(e) === grpc.status.NOT_FOUND && this.missingInstanceIsEmpty) return [];
      throw callError('ListTables', e, this.endpoint.address);
    }
  }

  private async readTable(id: string): Promise<TableSchema | undefined> {
    const name = `${this.parent}/tables/${id}`;
    let got;
    try {
      [got] = await this.admin.getTable({ name, view: 'FULL' }, FIRST_CALL);
    } catch (e) {
      if (grpcCode(e) === grpc.status.NOT_FOUND) return undefined;
      throw callError('GetTable', e, this.endpoint.address);
    }
    const families = new Map<string, FamilySchema>();
    for (const [family, f] of Object.entries(got.columnFamilies ?? {})) {
      families.set(family, { gcRule: gcRuleFromProto(f.gcRule as never), valueType: valueTypeFromProto(f.valueType as never) });
    }
    const [samples] = await call('SampleRowKeys', () => this.bigtable.instance(this.endpoint.instance).table(id).sampleRowKeys());
    const splits = samples.map((s) => fromBytes(Buffer.from(s.key as Uint8Array))).filter((k) => k !== '');
    return { families, deletionProtection: got.deletionProtection === true, splits, views: await this.readViews(name) };
  }

  /** A table's authorized views, or undefined when the server does not serve them (UNIMPLEMENTED: Google's emulator). */
  private async readViews(table: string): Promise<Map<string, ViewSchema> | undefined> {
    let views;
    try {
      [views] = await this.admin.listAuthorizedViews({ parent: table, view: 'FULL' });
    } catch (e) {
      if (grpcCode(e) === grpc.status.UNIMPLEMENTED) return undefined;
      throw callError('ListAuthorizedViews', e);
    }
    const out = new Map<string, ViewSchema>();
    for (const v of views) {
      out.set(lastSegment(v.name ?? ''), {
        subset: subsetViewFromProto((v.subsetView ?? {}) as never),
        deletionProtection: v.deletionProtection === true,
      });
    }
    return out;
  }

  /** Makes one change (waiting for its operation when it is one). */
  async apply(c: Change): Promise<void> {
    const table = `${this.parent}/tables/${c.table}`;
    switch (c.kind) {
      case 'createTable':
        await call('CreateTable', () =>
          this.admin.createTable({
            parent: this.parent,
            tableId: c.table,
            table: {
              columnFamilies: Object.fromEntries([...c.schema.families].map(([n, f]) => [n, familyProto(f)])),
              deletionProtection: c.schema.deletionProtection,
            },
            initialSplits: c.schema.splits.map((k) => ({ key: toBytes(k) })),
          }),
        );
        return;
      case 'deleteTable':
        await call('DeleteTable', () => this.admin.deleteTable({ name: table }));
        return;
      case 'createFamily':
        await this.modifyFamily(table, { id: c.family, create: familyProto(c.schema) });
        return;
      case 'updateGc':
        await this.modifyFamily(table, { id: c.family, update: familyProto(c.schema), updateMask: { paths: ['gc_rule'] } });
        return;
      case 'dropFamily':
        // The user has seen the drop in the plan; views that still name the family keep their definitions.
        await this.modifyFamily(table, { id: c.family, drop: true }, true);
        return;
      case 'createView':
        await operation('CreateAuthorizedView', () =>
          this.admin.createAuthorizedView({ parent: table, authorizedViewId: c.view, authorizedView: viewProto(c.schema) }),
        );
        return;
      case 'updateView':
        await operation('UpdateAuthorizedView', () =>
          this.admin.updateAuthorizedView({
            authorizedView: { name: `${table}/authorizedViews/${c.view}`, ...viewProto(c.schema) },
            updateMask: { paths: ['subset_view', 'deletion_protection'] },
          }),
        );
        return;
      case 'deleteView':
        await call('DeleteAuthorizedView', () => this.admin.deleteAuthorizedView({ name: `${table}/authorizedViews/${c.view}` }));
        return;
      case 'deletionProtection':
        await operation('UpdateTable', () =>
          this.admin.updateTable({ table: { name: table, deletionProtection: c.on }, updateMask: { paths: ['deletion_protection'] } }),
        );
        return;
    }
  }

  private async modifyFamily(table: string, modification: object, ignoreWarnings = false): Promise<void> {
    await call('ModifyColumnFamilies', () =>
      this.admin.modifyColumnFamilies({ name: table, modifications: [modification], ...(ignoreWarnings ? { ignoreWarnings } : {}) }),
    );
  }
}

function clientOptions(e: Endpoint): object {
  if (e.address === 'cloud') return { projectId: e.project, metricsEnabled: false };
  // google-auth-library would probe the GCE metadata server for credentials a custom endpoint does not use.
  process.env['METADATA_SERVER_DETECTION'] ??= 'none';
  const tls = e.address.startsWith('grpcs://');
  const apiEndpoint = e.address.replace(/^grpcs:\/\//, '');
  if (!tls) return { projectId: e.project, apiEndpoint, metricsEnabled: false };
  const bearer = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const metadata = new grpc.Metadata();
    if (e.token !== undefined) metadata.set('authorization', `Bearer ${e.token}`);
    callback(null, metadata);
  });
  // sslCreds reaches google-gax (BigtableOptions' typings do not list it).
  return {
    projectId: e.project,
    apiEndpoint,
    sslCreds: grpc.credentials.combineChannelCredentials(
      grpc.credentials.createSsl(
        e.extraCa === undefined ? null : Buffer.concat([Buffer.from(rootCertificates.join('\n') + '\n'), e.extraCa]),
      ),
      bearer,
    ),
    metricsEnabled: false,
  };
}

function familyProto(f: FamilySchema): object {
  const vt = valueTypeToProto(f.valueType);
  return { ...(f.gcRule === undefined ? {} : { gcRule: gcRuleToProto(f.gcRule) }), ...(vt === undefined ? {} : { valueType: vt }) };
}

function viewProto(v: ViewSchema): { subsetView: object; deletionProtection: boolean } {
  return { subsetView: subsetViewToProto(v.subset), deletionProtection: v.deletionProtection };
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

function grpcCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * The first call's retries give up after this long: the client would otherwise retry a server that is not there for
 * a minute and more before saying so.
 */
const FIRST_CALL = { timeout: 10_000 };

function callError(what: string, e: unknown, address?: string): ServerCallError {
  const details = (e as { details?: unknown } | null)?.details;
  const message = typeof details === 'string' && details !== '' ? details : e instanceof Error ? e.message : String(e);
  const unreachable = /No connection established\. Last error: (?:Error: )?([^\n]*?)(?:\. Resolution note|$)/.exec(message);
  if (unreachable !== null && address !== undefined) {
    return new ServerCallError(
      `cannot reach a Bigtable API at ${address} (${unreachable[1]}): is the server running, and is --endpoint (or BIGTABLE_EMULATOR_HOST) its gRPC address?`,
    );
  }
  const code = grpcCode(e);
  const status = code === undefined ? '' : `${grpc.status[code] ?? code}: `;
  return new ServerCallError(`${what} failed: ${status}${message}`);
}

async function call<T>(what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw callError(what, e);
  }
}

/** A long-running operation's call, then its result. */
async function operation(what: string, f: () => Promise<[{ promise(): Promise<unknown> }, ...unknown[]]>): Promise<void> {
  const [op] = await call(what, f);
  await call(what, () => op.promise());
}
