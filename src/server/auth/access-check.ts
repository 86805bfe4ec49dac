import { TabletopError, invalidArgument } from '../../model/errors.js';
import type { CallObserver, MethodInfo, Resource } from '../method-table.js';
import { resourceOfName } from '../method-table.js';
import { type CallStart, MalformedRequest } from '../rpc.js';
import { grpcCode, statusName } from '../status.js';
import { type Authenticator, NO_AUTHENTICATION } from './authenticator.js';
import type { Authorizer } from './authorizer.js';
import { ANY_CALLER, METHOD_NEEDS, type MethodNeed } from './permissions.js';

/**
 * The gRPC access check, a CallObserver: it authenticates each call from its `authorization` metadata and
 * sets the call's principal; when authentication is required it refuses a call without one UNAUTHENTICATED,
 * and a call whose caller lacks a permission its method needs (permissions.ts METHOD_NEEDS) on the resource the
 * request names, or one of the request's own `requestNeeds`, PERMISSION_DENIED, naming the permission and the
 * resource. Credentials that are given but not valid are UNAUTHENTICATED whether or not authentication is
 * required. Methods tabletop does not implement are only authenticated (they answer UNIMPLEMENTED); an
 * implemented method without an entry is refused.
 *
 * With NO_AUTHENTICATION it is no observer at all; with authentication optional, a call without credentials
 * costs one lookup of the header.
 */
export function accessCheck(
  authenticator: Authenticator,
  authorizer: Authorizer,
  options: { readonly needs?: ReadonlyMap<string, MethodNeed>; readonly requestNeeds?: ReadonlyMap<string, RequestNeeds> } = {},
): CallObserver | undefined {
  if (authenticator === NO_AUTHENTICATION) return undefined;
  const needs = options.needs ?? METHOD_NEEDS;
  return (method) => {
    const need = needs.get(method.path);
    const more = options.requestNeeds?.get(method.path);
    return (request, call) => {
      const header = call.metadata.get('authorization')[0];
      const principal =
        header === undefined ? undefined : authenticator.authenticate(typeof header === 'string' ? header : header.toString());
      call.principal = principal;
      if (!authenticator.required) return IGNORE_END;
      if (principal === undefined) {
        throw new TabletopError(
          'Unauthenticated',
          `${method.label} requires credentials: this server has authentication on; send "authorization: Bearer <token>" (tabletop auth create-token makes one)`,
        );
      }
      if (request === undefined || request instanceof MalformedRequest) return IGNORE_END; // unimplemented, or answered INVALID_ARGUMENT
      if (need === ANY_CALLER) return IGNORE_END;
      if (need === undefined) throw new TabletopError('PermissionDenied', `${method.label}: tabletop defines no permission for it`);
      const target = checkedResource(method, request);
      const permissions = need[target.kind];
      if (permissions === undefined) {
        throw invalidArgument(`${method.label} does not act on ${target.name} (a ${target.kind})`);
      }
      for (const p of permissions) authorizer.check(principal, p, target.name);
      if (more !== undefined) for (const n of more(request)) authorizer.check(principal, n.permission, n.resource);
      return IGNORE_END;
    };
  };
}

/**
 * Permissions a request needs beyond its method's, worked out from the request (the tables a query reads:
 * query-needs.ts); checked after the method's.
 */
export type RequestNeeds = (request: unknown) => readonly { readonly permission: string; readonly resource: string }[];

const IGNORE_END = (): void => {};

/** The resource a permission is checked on: the request's, or for an operation the resource it belongs to. */
function checkedResource(method: MethodInfo, request: unknown): Resource {
  const r = method.resource(request);
  if (r === undefined) throw invalidArgument(`${method.label}: the request names no resource`);
  if (r.kind !== 'operation') return r;
  const at = r.name.lastIndexOf('/operations/');
  const target = at < 0 ? undefined : resourceOfName(r.name.slice(0, at));
  if (target === undefined) throw invalidArgument(`${method.label}: "${r.name}" is not an operation of a resource`);
  return target;
}

/**
 * Observers run in order, each given the call as it starts; when a later one refuses the call, the earlier ones
 * are told it ended with the refusal's status (so the metrics observer counts refused calls).
 */
export function composeObservers(...observers: (CallObserver | undefined)[]): CallObserver {
  const present = observers.filter((o): o is CallObserver => o !== undefined);
  if (present.length === 1) return present[0]!;
  return (method) => {
    const starts = present.map((o) => o(method));
    const start: CallStart = (request, call) => {
      const ends: ((code: string) => void)[] = [];
      try {
        for (const s of starts) ends.push(s(request, call));
      } catch (e) {
        const code = e instanceof TabletopError ? statusName(grpcCode(e.code)) : 'INTERNAL';
        for (const end of ends) end(code);
        throw e;
      }
      return ends.length === 1 ? ends[0]! : (code) => ends.forEach((end) => end(code));
    };
    return start;
  };
}
