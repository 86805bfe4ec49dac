import * as grpc from '@grpc/grpc-js';
import { packageDefinition } from './loader-protos.js';

/**
 * Raw grpc-js clients for server tests, built from the same loaded protos
 * (protobufjs codecs, loader options of ../protos.ts): they show wire-level
 * details the official clients hide (chunks, message boundaries, statuses).
 */

type Client = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

export interface RawClients {
  readonly data: Client;
  readonly tableAdmin: Client;
  readonly instanceAdmin: Client;
  readonly operations: Client;
  close(): void;
}

const CHANNEL_OPTIONS = { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 };

export function rawClients(address: string): RawClients {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const pkg = grpc.loadPackageDefinition(packageDefinition()) as any;
  const make = (ctor: new (a: string, c: grpc.ChannelCredentials, o: object) => Client): Client =>
    new ctor(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const clients = {
    data: make(pkg.google.bigtable.v2.Bigtable),
    tableAdmin: make(pkg.google.bigtable.admin.v2.BigtableTableAdmin),
    instanceAdmin: make(pkg.google.bigtable.admin.v2.BigtableInstanceAdmin),
    operations: make(pkg.google.longrunning.Operations),
  };
  return { ...clients, close: () => Object.values(clients).forEach((c) => c.close()) };
}

export interface CallError {
  readonly code: grpc.status;
  readonly details: string;
}

/** A unary call; rejects with the ServiceError. */
export function unaryCall<T = any>(client: Client, method: string, request: object, metadata = new grpc.Metadata()): Promise<T> {
  return new Promise((resolve, reject) => {
    const fn = client[method];
    if (fn === undefined) return reject(new Error(`no method ${method}`));
    fn.call(client, request, metadata, { deadline: Date.now() + 20_000 }, (err: grpc.ServiceError | null, res: T) =>
      err ? reject(err) : resolve(res),
    );
  });
}

/** A unary call's failure (code and details); fails the test if the call succeeds. */
export async function unaryError(client: Client, method: string, request: object, metadata?: grpc.Metadata): Promise<CallError> {
  try {
    await unaryCall(client, method, request, metadata);
  } catch (e) {
    const err = e as grpc.ServiceError;
    return { code: err.code, details: err.details };
  }
  throw new Error(`${method} succeeded; an error was expected`);
}

export interface StreamResult<T> {
  readonly messages: T[];
  /** Status of the call: code 0 when it ended OK. */
  readonly status: CallError;
}

/** A server-streaming call, collected: all messages and the final status. */
export function streamCall<T = any>(
  client: Client,
  method: string,
  request: object,
  metadata = new grpc.Metadata(),
): Promise<StreamResult<T>> {
  return new Promise((resolve) => {
    const fn = client[method];
    if (fn === undefined) throw new Error(`no method ${method}`);
    const call = fn.call(client, request, metadata, { deadline: Date.now() + 60_000 }) as grpc.ClientReadableStream<T>;
    const messages: T[] = [];
    call.on('data', (m: T) => messages.push(m));
    call.on('error', () => {});
    call.on('status', (s: grpc.StatusObject) => resolve({ messages, status: { code: s.code, details: s.details } }));
  });
}

/** Metadata with the bigtable-features header (a base64 google.bigtable.v2.FeatureFlags). */
export function featuresMetadata(flags: { reverseScans?: boolean; lastScannedRowResponses?: boolean }): grpc.Metadata {
  const bytes: number[] = [];
  if (flags.reverseScans) bytes.push(0x08, 0x01);
  if (flags.lastScannedRowResponses) bytes.push(0x20, 0x01);
  const md = new grpc.Metadata();
  md.set('bigtable-features', Buffer.from(bytes).toString('base64url'));
  return md;
}
