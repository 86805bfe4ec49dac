import type { IamBinding, IamPolicy } from '../../db/api.js';
import { TabletopError } from '../../model/errors.js';
import type { Authorizer } from './authorizer.js';
import { roleGrants } from './permissions.js';
import type { Principal } from './principal.js';
import { NO_PROJECT_BINDINGS, type ProjectPolicySource } from './project-policies.js';

export interface PolicyAuthorizerOptions {
  /** The policy stored on a resource, if any (the db's storedIamPolicy). */
  readonly policyOf: (resource: string) => IamPolicy | undefined;
  readonly projects?: ProjectPolicySource;
  /** Milliseconds since the epoch, for `request.time` conditions (default Date.now). */
  readonly nowMillis?: () => number;
}

/**
 * The Authorizer over stored IAM policies. A caller holds a permission on a resource when a binding on the
 * resource or one of its parents (an authorized view's table, a table's instance, a backup's cluster, then the
 * instance, then the project's bindings) grants a role holding that permission to a member that matches the
 * caller. Members: `user:` and `serviceAccount:` match that identity (the email part case-insensitively);
 * `domain:d` matches any user or service account whose email is in d; `allAuthenticatedUsers` matches any
 * caller with credentials and `allUsers` any caller at all; `group:` never matches (tabletop has no group
 * directory), nor does any other kind. Conditions: a conditional binding grants only while its condition
 * holds, and tabletop evaluates only `request.time` compared with `timestamp("RFC 3339")` (`<`, `<=`, `>`,
 * `>=`), alone or joined by `&&`; any other condition fails closed (the binding grants nothing).
 */
export class PolicyAuthorizer implements Authorizer {
  private readonly projects: ProjectPolicySource;
  private readonly nowMillis: () => number;
  private readonly conditions = new Map<string, ((nowMillis: number) => boolean) | undefined>();

  constructor(private readonly options: PolicyAuthorizerOptions) {
    this.projects = options.projects ?? NO_PROJECT_BINDINGS;
    this.nowMillis = options.nowMillis ?? Date.now;
  }

  check(principal: Principal | undefined, permission: string, resource: string): void {
    if (!this.holds(principal, permission, resource)) throw permissionDenied(permission, resource);
  }

  granted(principal: Principal | undefined, permissions: readonly string[], resource: string): string[] {
    return permissions.filter((p) => this.holds(principal, p, resource));
  }

  /** True when a binding on `resource` or a parent grants `permission` to `principal`. */
  holds(principal: Principal | undefined, permission: string, resource: string): boolean {
    const parts = resource.split('/');
    if (parts[0] !== 'projects' || parts.length < 2) return false;
    // The resource and each parent: every prefix of an even number of segments, from 4 (the instance) up.
    for (let n = parts.length - (parts.length % 2); n >= 4; n -= 2) {
      const policy = this.options.policyOf(n === parts.length ? resource : parts.slice(0, n).join('/'));
      if (policy !== undefined && this.anyGrants(policy.bindings, principal, permission)) return true;
    }
    return this.anyGrants(this.projects.bindings(parts[1]!), principal, permission);
  }

  private anyGrants(bindings: readonly IamBinding[], principal: Principal | undefined, permission: string): boolean {
    for (const b of bindings) {
      if (!roleGrants(b.role, permission)) continue;
      if (!b.members.some((m) => memberMatches(m, principal))) continue;
      if (b.condition === undefined || this.conditionHolds(b.condition.expression)) return true;
    }
    return false;
  }

  private conditionHolds(expression: string): boolean {
    let evaluate = this.conditions.get(expression);
    if (evaluate === undefined && !this.conditions.has(expression)) {
      evaluate = compileTimeCondition(expression);
      this.conditions.set(expression, evaluate);
    }
    return evaluate !== undefined && evaluate(this.nowMillis());
  }
}

/**
 * The refusal: the service's words ("Access denied. Missing IAM permission: bigtable.tables.readRows.", as the
 * clients' issue reports quote it), with the resource added.
 */
export function permissionDenied(permission: string, resource: string): TabletopError {
  return new TabletopError('PermissionDenied', `Access denied. Missing IAM permission: ${permission} on resource ${resource}.`);
}

/** True when the policy member `member` names the caller. */
export function memberMatches(member: string, principal: Principal | undefined): boolean {
  if (member === 'allUsers') return true;
  if (principal === undefined) return false;
  if (member === 'allAuthenticatedUsers') return true;
  const colon = member.indexOf(':');
  if (colon < 0) return false;
  const kind = member.slice(0, colon);
  const value = member.slice(colon + 1).toLowerCase();
  const callerColon = principal.member.indexOf(':');
  const callerKind = principal.member.slice(0, callerColon);
  const callerEmail = principal.member.slice(callerColon + 1).toLowerCase();
  if (callerKind !== 'user' && callerKind !== 'serviceAccount') return false;
  if (kind === 'user' || kind === 'serviceAccount') return kind === callerKind && value === callerEmail;
  if (kind === 'domain') return callerEmail.endsWith(`@${value}`);
  return false; // group: (no group directory), deleted:, principal://, ...
}

const TIME_CLAUSE = /^request\.time\s*(<=|>=|<|>)\s*timestamp\(\s*(?:"([^"]*)"|'([^']*)')\s*\)$/;

/**
 * A condition made only of `request.time OP timestamp("...")` clauses joined by `&&`, as a function of now;
 * undefined for anything else (which then grants nothing).
 */
export function compileTimeCondition(expression: string): ((nowMillis: number) => boolean) | undefined {
  const clauses = expression.split('&&').map((c) => c.trim());
  const tests: ((now: number) => boolean)[] = [];
  for (const clause of clauses) {
    const m = TIME_CLAUSE.exec(clause);
    if (m === null) return undefined;
    const at = Date.parse(m[2] ?? m[3]!);
    if (!Number.isFinite(at)) return undefined;
    const op = m[1];
    tests.push(op === '<' ? (n) => n < at : op === '<=' ? (n) => n <= at : op === '>' ? (n) => n > at : (n) => n >= at);
  }
  return (now) => tests.every((t) => t(now));
}
