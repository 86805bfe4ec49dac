import { describe, expect, it } from 'vitest';
import type { IamPolicy } from '../../db/api.js';
import { type ErrorCode, isTabletopError } from '../../model/errors.js';
import { MapAuthenticator } from './testing/map-authenticator.js';
import { type CallObserver, type MethodInfo, type Resource, resourceOfName } from '../method-table.js';
import { type CallStartInfo, MalformedRequest } from '../rpc.js';
import { accessCheck, composeObservers } from './access-check.js';
import { NO_AUTHENTICATION } from './authenticator.js';
import { PolicyAuthorizer } from './policy-authorizer.js';

const T = 'projects/p/instances/i/tables/t';
const tokens = { alice: 'user:alice@example.com', bob: 'user:bob@example.com' };
const policies = new Map<string, IamPolicy>([
  [T, { version: 1, bindings: [{ role: 'roles/bigtable.reader', members: [tokens.alice] }], etag: 'e' }],
]);
const authorizer = new PolicyAuthorizer({ policyOf: (r) => policies.get(r) });

function method(
  path: string,
  resource: (req: unknown) => Resource | undefined = (req) => resourceOfName((req as { name?: string }).name),
): MethodInfo {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return { path, service: path.slice(1, path.lastIndexOf('/')), name, label: name, shape: 'unary', resource };
}
const READ_ROWS = method('/google.bigtable.v2.Bigtable/ReadRows');
const GET_OPERATION = method('/google.longrunning.Operations/GetOperation', (req) => ({
  kind: 'operation',
  name: (req as { name: string }).name,
}));

function call(authorization?: string): CallStartInfo {
  return {
    metadata: { get: (key) => (key === 'authorization' && authorization !== undefined ? [authorization] : []) },
    principal: undefined,
  };
}

/** The error code `start` refuses with, or 'OK' (and the principal it set). */
function outcome(observer: CallObserver, m: MethodInfo, request: unknown, c: CallStartInfo): ErrorCode | 'OK' {
  try {
    observer(m)(request, c)('OK');
    return 'OK';
  } catch (e) {
    if (isTabletopError(e)) return e.code;
    throw e;
  }
}

describe('the access check', () => {
  it('is no observer without authentication', () => {
    expect(accessCheck(NO_AUTHENTICATION, authorizer)).toBeUndefined();
  });

  it('with authentication required: sets the principal, refuses anonymous calls and calls lacking the permission', () => {
    const check = accessCheck(new MapAuthenticator(tokens), authorizer)!;
    const asAlice = call('Bearer alice');
    expect(outcome(check, READ_ROWS, { name: T }, asAlice)).toBe('OK');
    expect(asAlice.principal?.member).toBe(tokens.alice);
    expect(outcome(check, READ_ROWS, { name: T }, call('Bearer bob'))).toBe('PermissionDenied');
    expect(outcome(check, READ_ROWS, { name: T }, call())).toBe('Unauthenticated');
    expect(outcome(check, READ_ROWS, { name: T }, call('Bearer nobody'))).toBe('Unauthenticated');
    expect(outcome(check, READ_ROWS, { name: 'projects/p/instances/i/tables/other' }, call('Bearer alice'))).toBe('PermissionDenied');
    // A request without a resource is refused as the handler would; an undecodable one is left to the runner.
    expect(outcome(check, READ_ROWS, {}, call('Bearer alice'))).toBe('InvalidArgument');
    expect(outcome(check, READ_ROWS, new MalformedRequest('bad'), call('Bearer bob'))).toBe('OK');
    // Methods tabletop does not implement are only authenticated; an implemented one without an entry is refused.
    expect(outcome(check, method('/google.bigtable.v2.Bigtable/ReadChangeStream'), undefined, call('Bearer bob'))).toBe('OK');
    expect(outcome(check, method('/google.bigtable.v2.Bigtable/Unlisted'), { name: T }, call('Bearer alice'))).toBe('PermissionDenied');
  });

  it('checks an operation against the resource it belongs to', () => {
    const check = accessCheck(new MapAuthenticator(tokens), authorizer)!;
    expect(outcome(check, GET_OPERATION, { name: `${T}/operations/op1` }, call('Bearer alice'))).toBe('OK');
    expect(outcome(check, GET_OPERATION, { name: `${T}/operations/op1` }, call('Bearer bob'))).toBe('PermissionDenied');
    expect(outcome(check, GET_OPERATION, { name: 'operations/op1' }, call('Bearer alice'))).toBe('InvalidArgument');
  });

  it('checks what a request needs besides its method (the tables a query reads)', () => {
    const requestNeeds = new Map([
      [READ_ROWS.path, (req: unknown) => [{ permission: 'bigtable.tables.readRows', resource: (req as { other: string }).other }]],
    ]);
    const check = accessCheck(new MapAuthenticator(tokens), authorizer, { requestNeeds })!;
    expect(outcome(check, READ_ROWS, { name: T, other: T }, call('Bearer alice'))).toBe('OK');
    expect(outcome(check, READ_ROWS, { name: T, other: 'projects/p/instances/i/tables/secret' }, call('Bearer alice'))).toBe(
      'PermissionDenied',
    );
  });

  it('with authentication optional: anonymous calls pass, given credentials are checked, nothing is refused for permissions', () => {
    const check = accessCheck(new MapAuthenticator(tokens, false), authorizer)!;
    expect(outcome(check, READ_ROWS, { name: T }, call())).toBe('OK');
    const asBob = call('Bearer bob');
    expect(outcome(check, READ_ROWS, { name: T }, asBob)).toBe('OK');
    expect(asBob.principal?.member).toBe(tokens.bob);
    expect(outcome(check, READ_ROWS, { name: T }, call('Basic xyz'))).toBe('Unauthenticated');
  });

  it('composed after another observer, tells it how a refused call ended', () => {
    const ended: string[] = [];
    const counting: CallObserver = () => () => (code) => void ended.push(code);
    const observer = composeObservers(counting, accessCheck(new MapAuthenticator(tokens), authorizer));
    expect(outcome(observer, READ_ROWS, { name: T }, call('Bearer bob'))).toBe('PermissionDenied');
    expect(outcome(observer, READ_ROWS, { name: T }, call())).toBe('Unauthenticated');
    expect(outcome(observer, READ_ROWS, { name: T }, call('Bearer alice'))).toBe('OK');
    expect(ended).toEqual(['PERMISSION_DENIED', 'UNAUTHENTICATED', 'OK']);
    expect(composeObservers(counting, undefined)).toBe(counting);
  });
});
