import { describe, expect, it } from 'vitest';
import type { IamBinding, IamPolicy } from '../../db/api.js';
import { isTabletopError } from '../../model/errors.js';
import { PolicyAuthorizer, compileTimeCondition, memberMatches } from './policy-authorizer.js';
import type { Principal } from './principal.js';

const I = 'projects/p/instances/i';
const T = `${I}/tables/t`;
const AV = `${T}/authorizedViews/v`;
const who = (member: string): Principal => ({ member, via: { kind: 'token', tokenId: 'tok1' } });
const alice = who('user:alice@example.com');
const bob = who('user:bob@other.org');
const ci = who('serviceAccount:ci@p.iam.gserviceaccount.com');

function authorizer(policies: Record<string, IamBinding[]>, project: IamBinding[] = [], nowMillis = (): number => Date.UTC(2026, 0, 1)) {
  const stored = new Map<string, IamPolicy>(Object.entries(policies).map(([r, bindings]) => [r, { version: 3, bindings, etag: 'e' }]));
  return new PolicyAuthorizer({
    policyOf: (r) => stored.get(r),
    projects: { bindings: (p) => (p === 'p' ? project : []) },
    nowMillis,
  });
}

describe('the policy authorizer', () => {
  it('grants what the roles bound on the resource hold, and nothing else', () => {
    const a = authorizer({ [T]: [{ role: 'roles/bigtable.reader', members: ['user:alice@example.com'] }] });
    expect(a.holds(alice, 'bigtable.tables.readRows', T)).toBe(true);
    expect(a.holds(alice, 'bigtable.tables.mutateRows', T)).toBe(false);
    expect(a.holds(bob, 'bigtable.tables.readRows', T)).toBe(false);
    expect(a.holds(undefined, 'bigtable.tables.readRows', T)).toBe(false);
    expect(a.granted(alice, ['bigtable.tables.readRows', 'bigtable.tables.mutateRows', 'bigtable.tables.sampleRowKeys'], T)).toEqual([
      'bigtable.tables.readRows',
      'bigtable.tables.sampleRowKeys',
    ]);
  });

  it('inherits downward only: a grant on the instance reaches its tables and views, one on a view reaches nothing above', () => {
    const a = authorizer({
      [I]: [{ role: 'roles/bigtable.user', members: ['user:alice@example.com'] }],
      [AV]: [{ role: 'roles/bigtable.reader', members: ['user:bob@other.org'] }],
      [T]: [{ role: 'roles/bigtable.viewer', members: ['user:bob@other.org'] }],
    });
    expect(a.holds(alice, 'bigtable.tables.mutateRows', T)).toBe(true);
    expect(a.holds(alice, 'bigtable.authorizedViews.mutateRows', AV)).toBe(true);
    expect(a.holds(alice, 'bigtable.tables.mutateRows', 'projects/p/instances/other/tables/t')).toBe(false);
    expect(a.holds(bob, 'bigtable.authorizedViews.readRows', AV)).toBe(true);
    expect(a.holds(bob, 'bigtable.tables.readRows', T)).toBe(false);
    expect(a.holds(bob, 'bigtable.tables.get', T)).toBe(true);
    expect(a.holds(bob, 'bigtable.authorizedViews.readRows', `${T}/authorizedViews/other`)).toBe(false);
  });

  it('takes project-level bindings from the project policy source', () => {
    const a = authorizer({}, [{ role: 'roles/bigtable.admin', members: ['serviceAccount:ci@p.iam.gserviceaccount.com'] }]);
    expect(a.holds(ci, 'bigtable.instances.create', 'projects/p')).toBe(true);
    expect(a.holds(ci, 'bigtable.tables.setIamPolicy', T)).toBe(true);
    expect(a.holds(ci, 'bigtable.tables.readRows', 'projects/q/instances/i/tables/t')).toBe(false);
    expect(a.holds(alice, 'bigtable.tables.readRows', T)).toBe(false);
  });

  it('check() refuses PERMISSION_DENIED naming the permission and the resource', () => {
    const a = authorizer({});
    let error: unknown;
    try {
      a.check(alice, 'bigtable.tables.readRows', T);
    } catch (e) {
      error = e;
    }
    expect(isTabletopError(error, 'PermissionDenied')).toBe(true);
    expect((error as Error).message).toBe(`Access denied. Missing IAM permission: bigtable.tables.readRows on resource ${T}.`);
  });

  it('matches members: users and service accounts exactly (emails case-insensitively), domains, allUsers, allAuthenticatedUsers; never groups', () => {
    expect(memberMatches('user:Alice@Example.com', alice)).toBe(true);
    expect(memberMatches('user:alice@example.com', ci)).toBe(false);
    expect(memberMatches('serviceAccount:ci@p.iam.gserviceaccount.com', ci)).toBe(true);
    expect(memberMatches('domain:example.com', alice)).toBe(true);
    expect(memberMatches('domain:example.com', bob)).toBe(false);
    expect(memberMatches('domain:ple.com', alice)).toBe(false);
    expect(memberMatches('allUsers', undefined)).toBe(true);
    expect(memberMatches('allAuthenticatedUsers', undefined)).toBe(false);
    expect(memberMatches('allAuthenticatedUsers', bob)).toBe(true);
    expect(memberMatches('group:team@example.com', alice)).toBe(false);
    expect(memberMatches('deleted:user:alice@example.com?uid=1', alice)).toBe(false);
    expect(memberMatches('alice@example.com', alice)).toBe(false);
  });

  it('evaluates request.time conditions and fails closed on every other condition', () => {
    const jan2026 = Date.UTC(2026, 0, 1);
    const until2027 = 'request.time < timestamp("2027-01-01T00:00:00Z")';
    const conditional = (expression: string): IamBinding => ({
      role: 'roles/bigtable.reader',
      members: ['user:alice@example.com'],
      condition: { expression, title: 't', description: '', location: '' },
    });
    const at = (millis: number, expression: string): boolean =>
      authorizer({ [T]: [conditional(expression)] }, [], () => millis).holds(alice, 'bigtable.tables.readRows', T);
    expect(at(jan2026, until2027)).toBe(true);
    expect(at(Date.UTC(2027, 5, 1), until2027)).toBe(false);
    const window = `request.time >= timestamp('2026-06-01T00:00:00Z') && request.time <= timestamp("2026-07-01T00:00:00Z")`;
    expect(at(jan2026, window)).toBe(false);
    expect(at(Date.UTC(2026, 5, 15), window)).toBe(true);
    expect(at(jan2026, 'resource.name.startsWith("projects/p/instances/i/tables/t")')).toBe(false);
    expect(at(jan2026, `${until2027} || true`)).toBe(false);
    expect(at(jan2026, 'request.time < timestamp("not a time")')).toBe(false);
    expect(compileTimeCondition('request.time > timestamp("2020-01-01T00:00:00Z")')?.(jan2026)).toBe(true);
  });
});
