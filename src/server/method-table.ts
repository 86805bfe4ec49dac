import type { Logger } from './logger.js';
import {
  type CallStart,
  MalformedRequest,
  type RpcHandler,
  type StreamHandler,
  type UnaryHandler,
  rejectRunner,
  safeDecoder,
  serverStreamRunner,
  unaryRunner,
} from './rpc.js';

/**
 * The method table: one neutral description per RPC that tabletop serves,
 * which both transports serve from (tabletop's HTTP/2 transport routes
 * `:path` straight to it, transport/grpc-js-server.ts registers it with a
 * grpc-js server).
 *
 * A service declares its methods beside their handlers (data/data-service.ts,
 * admin/*-service.ts) as a ServiceSpec: for each method it implements, the
 * call shape, the request decoder and response encoder when it has its own
 * (the hand-written fast codecs of the hot paths), the resource the call
 * targets as a function of the decoded request, and the handler.
 * serviceMethods() completes a spec from what the protos define
 * (protos.ts): the protos' codecs where the spec gives none, and every method
 * the protos define that the service does not implement, answered
 * UNIMPLEMENTED ("X (feature) is not implemented by tabletop yet") without
 * reading its request. It checks the spec against the protos (no method the
 * protos do not define, the protos' call shape).
 *
 * Every call passes through its method's observer (CallObserver) with its
 * decoded request, before its handler runs: request metrics and the
 * slow-call log go through it (metrics.ts observeCalls), and it is where
 * per-resource access checks (IAM enforcement, authorized views: the
 * method's resource() of the request, refused by throwing) and per-request
 * metrics will hook in.
 */

/** How many messages each side sends: as grpc-js names the four gRPC call types. */
export type CallShape = 'unary' | 'serverStream' | 'clientStream' | 'bidi';

export type ResourceKind =
  | 'project'
  | 'instance'
  | 'cluster'
  | 'appProfile'
  | 'table'
  | 'authorizedView'
  | 'logicalView'
  | 'materializedView'
  | 'backup'
  | 'operation';

/** A resource a call targets, by its full name (e.g. projects/p/instances/i/tables/t). */
export interface Resource {
  readonly kind: ResourceKind;
  readonly name: string;
}

/** A resource of `kind` named `name`; none when the name is empty or absent. */
export function resource(kind: ResourceKind, name: string | null | undefined): Resource | undefined {
  return name ? { kind, name } : undefined;
}

const COLLECTIONS: Readonly<Record<string, ResourceKind>> = {
  projects: 'project',
  instances: 'instance',
  clusters: 'cluster',
  appProfiles: 'appProfile',
  tables: 'table',
  authorizedViews: 'authorizedView',
  logicalViews: 'logicalView',
  materializedViews: 'materializedView',
  backups: 'backup',
  operations: 'operation',
};

/** The resource a full name names, by its last collection (".../tables/t" is a table); none for an unknown collection. */
export function resourceOfName(name: string | null | undefined): Resource | undefined {
  if (!name) return undefined;
  const parts = name.split('/');
  if (parts.length % 2 !== 0) return undefined;
  const kind = COLLECTIONS[parts[parts.length - 2]!];
  return kind === undefined ? undefined : { kind, name };
}

// ---------------------------------------------------------------------------
// What services declare.

interface SpecBase<Req, Res> {
  /** The request decoder; default: the protos'. Whatever it throws is reported as INVALID_ARGUMENT. */
  readonly decode?: (bytes: Buffer) => Req;
  /** A decoder of a request that arrived in pieces (the HTTP/2 transport's DATA frames), so that it need not be joined first. */
  readonly decodeParts?: (parts: readonly Buffer[]) => Req;
  /** The response encoder; default: the protos', with an empty message (`{}`) encoded without it. */
  readonly encode?: (response: Res) => Buffer;
  /** What the call targets (none: undefined). Only called for a request that decoded. */
  readonly resource: (request: Req) => Resource | undefined;
}

export interface UnarySpec<Req, Res> extends SpecBase<Req, Res> {
  readonly shape: 'unary';
  readonly handle: UnaryHandler<Req, Res>;
}

export interface ServerStreamSpec<Req, Res> extends SpecBase<Req, Res> {
  readonly shape: 'serverStream';
  readonly handle: StreamHandler<Req, Res>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MethodSpec = UnarySpec<any, any> | ServerStreamSpec<any, any>;

/** What a service declares of a method besides its handler. */
export type Description<Req, Res> = SpecBase<Req, Res>;

/** A unary method: its description, then its handler. */
export function unary<Req, Res>(description: Description<Req, Res>, handle: UnaryHandler<Req, Res>): UnarySpec<Req, Res> {
  return { shape: 'unary', ...description, handle };
}

/** A server-streaming method: its description, then its handler. */
export function serverStream<Req, Res>(description: Description<Req, Res>, handle: StreamHandler<Req, Res>): ServerStreamSpec<Req, Res> {
  return { shape: 'serverStream', ...description, handle };
}

/** Methods tabletop does not implement yet, listed under the feature they belong to. */
export type NotYetImplemented = Readonly<Record<string, readonly string[]>>;

export interface ServiceSpec {
  /** The full service name, e.g. "google.bigtable.v2.Bigtable". */
  readonly service: string;
  /** The methods the service implements, by name. */
  readonly methods: Readonly<Record<string, MethodSpec>>;
  /** Methods of the protos it does not implement, by feature; any other such method is "this RPC". */
  readonly notYet?: NotYetImplemented;
}

/** What the protos say of a method (the shape of protos.ts's definitions). */
export interface ProtoMethod {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestDeserialize: (bytes: Buffer) => unknown;
  readonly responseSerialize: (value: unknown) => Buffer;
}

// ---------------------------------------------------------------------------
// The table.

/** A method as observers see it: what it is and what it targets. */
export interface MethodInfo {
  /** "/google.bigtable.v2.Bigtable/ReadRows" */
  readonly path: string;
  /** "google.bigtable.v2.Bigtable" */
  readonly service: string;
  /** "ReadRows" */
  readonly name: string;
  /** "Bigtable/ReadRows", for messages. */
  readonly label: string;
  readonly shape: CallShape;
  /**
   * The resource a request targets. Never throws; none for a request that did
   * not decode and for methods tabletop does not implement (their requests
   * are not read).
   */
  readonly resource: (request: unknown) => Resource | undefined;
}

/** A method as the transports run it. */
export interface Method extends MethodInfo {
  /** Request bytes to the request; never throws (an undecodable request becomes a MalformedRequest, which the runner reports). */
  readonly decode: (bytes: Buffer) => unknown;
  /** The same from the pieces a request arrived in, for methods that can; else undefined (join them, then decode). */
  readonly decodeParts: ((parts: readonly Buffer[]) => unknown) | undefined;
  readonly encode: (response: unknown) => Buffer;
  readonly handler: RpcHandler;
}

/**
 * Given once per method as the table is built; what it returns runs at the
 * start of each call of that method, before the handler, and may refuse the
 * call (rpc.ts CallStart).
 */
export type CallObserver = (method: MethodInfo) => CallStart;

export interface TableEnv {
  readonly observe: CallObserver;
  readonly logger: Logger;
}

/** The UNIMPLEMENTED message of a method tabletop does not implement. */
function notImplementedMessage(name: string, feature: string | undefined): string {
  return `${name} (${feature ?? 'this RPC'}) is not implemented by tabletop yet`;
}

/**
 * Every method the protos define for `spec.service`, as the table holds it.
 * Throws when the spec does not match the protos.
 */
export function serviceMethods(spec: ServiceSpec, protos: Readonly<Record<string, ProtoMethod>>, env: TableEnv): Method[] {
  const where = (name: string): string => `${spec.service}.${name}`;
  for (const name of Object.keys(spec.methods)) {
    if (protos[name] === undefined) throw new Error(`${where(name)} has a handler, but the protos define no such method`);
  }
  const featureOf = new Map<string, string>();
  for (const [feature, names] of Object.entries(spec.notYet ?? {})) {
    for (const name of names) {
      if (protos[name] === undefined) throw new Error(`${where(name)} is listed as not implemented, but the protos define no such method`);
      if (spec.methods[name] !== undefined || featureOf.has(name)) throw new Error(`${where(name)} is listed twice`);
      featureOf.set(name, feature);
    }
  }
  return Object.entries(protos).map(([name, proto]) => {
    const shape = shapeOf(proto);
    const path = `/${spec.service}/${name}`;
    if (proto.path !== path) throw new Error(`${where(name)}: the protos give the path ${proto.path}`);
    const m = spec.methods[name];
    if (m !== undefined && m.shape !== shape) throw new Error(`${where(name)} is ${shape} in the protos, but its handler is ${m.shape}`);
    const info: MethodInfo = Object.freeze({
      path,
      service: spec.service,
      name,
      label: `${spec.service.slice(spec.service.lastIndexOf('.') + 1)}/${name}`,
      shape,
      resource: m === undefined ? noResource : decodedOnly(m.resource),
    });
    const begin = env.observe(info);
    let handler: RpcHandler;
    if (m === undefined) handler = rejectRunner(name, notImplementedMessage(name, featureOf.get(name)), begin, env.logger);
    else if (m.shape === 'unary') handler = unaryRunner(name, m.handle, begin, env.logger);
    else handler = serverStreamRunner(name, m.handle, begin, env.logger);
    const method: Method = {
      ...info,
      decode: safeDecoder(name, m?.decode ?? proto.requestDeserialize),
      decodeParts: m?.decodeParts === undefined ? undefined : safeDecoder(name, m.decodeParts),
      encode: m?.encode ?? emptyFastPath(proto.responseSerialize),
      handler,
    };
    return Object.freeze(method);
  });
}

function shapeOf(m: ProtoMethod): CallShape {
  if (m.requestStream) return m.responseStream ? 'bidi' : 'clientStream';
  return m.responseStream ? 'serverStream' : 'unary';
}

function noResource(): undefined {
  return undefined;
}

function decodedOnly(extract: (request: never) => Resource | undefined): (request: unknown) => Resource | undefined {
  return (request) =>
    typeof request === 'object' && request !== null && !(request instanceof MalformedRequest) ? extract(request as never) : undefined;
}

const EMPTY_MESSAGE = Buffer.alloc(0);

/** True for `{}` (no own enumerable keys): a message with no field set, which encodes to no bytes. */
function isEmptyObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  for (const _ in v) return false;
  return true;
}

/** The protos' encoder, with `{}` (MutateRow's, PingAndWarm's and many admin responses) encoded without it. */
function emptyFastPath(serialize: (v: unknown) => Buffer): (v: unknown) => Buffer {
  return (v) => (isEmptyObject(v) ? EMPTY_MESSAGE : serialize(v));
}

/** The methods of every service served, by path. */
export class MethodTable {
  private readonly byPath = new Map<string, Method>();
  private readonly services = new Set<string>();

  /** Throws when two methods have the same path. */
  constructor(methods: Iterable<Method>) {
    for (const m of methods) {
      if (this.byPath.has(m.path)) throw new Error(`${m.path} is in the method table twice`);
      this.byPath.set(m.path, m);
      this.services.add(m.service);
    }
  }

  /** The method of a `:path` ("/package.Service/Method"). */
  get(path: string): Method | undefined {
    return this.byPath.get(path);
  }

  get methods(): readonly Method[] {
    return [...this.byPath.values()];
  }

  /** Why `path` has no method, for the UNIMPLEMENTED status. */
  unknownPathMessage(path: string): string {
    const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
    if (m === null) return `Malformed method path "${path}": expected /package.Service/Method`;
    const [, service, method] = m;
    if (!this.services.has(service!)) return `Unknown service ${service!}`;
    return `Unknown method ${method!} for service ${service!}`;
  }
}
