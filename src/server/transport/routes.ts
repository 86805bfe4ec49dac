import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import type { AnyMethod } from '../protos.js';
import { type RpcHandler, rpcHandlerOf } from '../rpc.js';

/** What runs a `:path`: the method's definition (codecs, shape) and its transport-neutral handler. */
export interface Route {
  /** "Service/Method" without the package, for messages, e.g. "Bigtable/ReadRows". */
  readonly name: string;
  readonly method: AnyMethod;
  readonly handler: RpcHandler;
}

/** The `:path` → route table of tabletop's HTTP/2 transport. */
export class RouteTable {
  private readonly routes = new Map<string, Route>();
  private readonly services = new Set<string>();

  /**
   * Adds every method of a service. Throws when a method has no handler or a
   * handler was not built by rpc.ts's wrappers (the transport can run no other).
   */
  addService(service: string, methods: Record<string, AnyMethod>, impl: UntypedServiceImplementation): void {
    this.services.add(service);
    const short = service.slice(service.lastIndexOf('.') + 1);
    for (const [name, method] of Object.entries(methods)) {
      const handler = rpcHandlerOf(impl[name]);
      if (handler === undefined) throw new Error(`${service}.${name} has no handler built by rpc.ts (unary, serverStream or unimplementedHandler)`);
      if (handler.kind !== 'reject' && method.requestStream) {
        throw new Error(`${service}.${name} streams requests; tabletop's transport runs only rejecting handlers for such methods`);
      }
      if (handler.kind === 'unary' && method.responseStream) throw new Error(`${service}.${name} streams responses but has a unary handler`);
      if (handler.kind === 'serverStream' && !method.responseStream) throw new Error(`${service}.${name} is unary but has a streaming handler`);
      this.routes.set(`/${service}/${name}`, { name: `${short}/${name}`, method, handler });
    }
  }

  get(path: string): Route | undefined {
    return this.routes.get(path);
  }

  /** Why `path` has no route, for the UNIMPLEMENTED status. */
  unknownPathMessage(path: string): string {
    const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
    if (m === null) return `Malformed method path "${path}": expected /package.Service/Method`;
    const [, service, method] = m;
    if (!this.services.has(service!)) return `Unknown service ${service!}`;
    return `Unknown method ${method!} for service ${service!}`;
  }
}
