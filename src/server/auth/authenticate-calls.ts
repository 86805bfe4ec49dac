import { TabletopError } from '../../model/errors.js';
import type { CallObserver } from '../method-table.js';
import type { RequestMetadata } from '../rpc.js';
import type { Authenticator } from './authenticator.js';

/**
 * Authentication in front of a call observer: the call's `authorization`
 * header goes to the authenticator, whose principal the call then carries
 * (CallStartInfo.principal, CallContext.principal). Refused UNAUTHENTICATED:
 * credentials that are given but not valid (whether or not authentication
 * is required), and no credentials when it is required. A refused call is
 * still reported to the observer (metrics count it) with that status.
 *
 * (The access check of issue 24's IAM part builds on this step; until it is
 * merged this is what the gRPC server composes when given an authenticator.)
 */
export function authenticateCalls(authenticator: Authenticator, observe: CallObserver): CallObserver {
  return (method) => {
    const begin = observe(method);
    return (request, call) => {
      try {
        call.principal = authenticator.authenticate(authorizationOf(call.metadata));
        if (call.principal === undefined && authenticator.required)
          throw new TabletopError(
            'Unauthenticated',
            `${method.name} requires credentials: this server has authentication on; send "authorization: Bearer <token>" (tabletop auth create-token makes one)`,
          );
      } catch (e) {
        begin(request, call)('UNAUTHENTICATED');
        throw e;
      }
      return begin(request, call);
    };
  };
}

/** The one `authorization` value of a call; undefined when absent. Several, or a binary one, are malformed. */
export function authorizationOf(metadata: RequestMetadata): string | undefined {
  const values = metadata.get('authorization');
  if (values.length === 0) return undefined;
  const [value] = values;
  if (values.length > 1 || typeof value !== 'string')
    throw new TabletopError('Unauthenticated', 'The call carries several authorization headers: send exactly one');
  return value;
}
