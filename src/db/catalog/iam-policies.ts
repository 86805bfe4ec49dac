import { TabletopError, invalidArgument } from '../../model/errors.js';
import type { InstanceName } from '../../model/names.js';
import type { IamPolicy, IamPolicySpec } from '../api.js';
import type { Catalog, InstanceEntry } from './catalog.js';

/** The kinds of resource that hold IAM policies. */
export type PolicyResourceKind = 'instance' | 'table' | 'authorizedView' | 'logicalView' | 'materializedView' | 'backup';

/** Checks that the resource `name` (of its kind) exists: throws NOT_FOUND otherwise. */
export type ResourceCheck = (name: string) => void;

/** The etag of a resource's policy before anyone set one (the service's empty policy has this one too). */
export const EMPTY_POLICY_ETAG = 'ACAB';

/**
 * The resources that hold policies, by the collections of their name after `projects/P/instances/I`
 * (an instance's own name has none). Adding a kind is one line here and its existence check in the database.
 */
const POLICY_RESOURCES: readonly { readonly kind: PolicyResourceKind; readonly collections: readonly string[] }[] = [
  { kind: 'instance', collections: [] },
  { kind: 'table', collections: ['tables'] },
  { kind: 'authorizedView', collections: ['tables', 'authorizedViews'] },
  { kind: 'logicalView', collections: ['logicalViews'] },
  { kind: 'materializedView', collections: ['materializedViews'] },
  { kind: 'backup', collections: ['clusters', 'backups'] },
];

/** The kind and instance of a name that can hold a policy; undefined for any other name. */
export function policyResourceOf(name: string): { readonly kind: PolicyResourceKind; readonly instance: InstanceName } | undefined {
  const parts = name.split('/');
  if (parts.length < 4 || parts.length % 2 !== 0 || parts[0] !== 'projects' || parts[2] !== 'instances') return undefined;
  if (parts.some((p) => p === '')) return undefined;
  const collections = parts.slice(4).filter((_, i) => i % 2 === 0);
  const found = POLICY_RESOURCES.find(
    (r) => r.collections.length === collections.length && r.collections.every((c, i) => c === collections[i]),
  );
  return found === undefined ? undefined : { kind: found.kind, instance: { project: parts[1]!, instance: parts[3]! } };
}

/**
 * IAM policies, kept in the catalog with their instance (InstanceRecord.iamPolicies, by full resource name) and
 * persisted with it. A policy is stored as set: version, bindings and their conditions (the db does not evaluate
 * them; the server's authorizer does). Every set gives a fresh etag; a stale etag is ABORTED, as the service
 * answers. Deleting a resource forgets its policy and those of the resources under it (`forget`); deleting the
 * instance drops them all with its record.
 */
export class IamPolicies {
  constructor(
    private readonly catalog: Catalog,
    /** Throws NOT_FOUND for a resource that does not exist, by kind. */
    private readonly exists: Readonly<Record<PolicyResourceKind, ResourceCheck>>,
  ) {}

  get(resource: string): IamPolicy {
    const entry = this.entryOf(resource);
    return entry.record.iamPolicies?.[resource] ?? { version: 1, bindings: [], etag: EMPTY_POLICY_ETAG };
  }

  set(resource: string, spec: IamPolicySpec, etag: string | undefined): IamPolicy {
    validateSpec(spec);
    const entry = this.entryOf(resource);
    const current = entry.record.iamPolicies?.[resource]?.etag ?? EMPTY_POLICY_ETAG;
    if (etag !== undefined && etag !== '' && etag !== current) {
      throw new TabletopError(
        'Aborted',
        `The policy of ${resource} changed since it was read (its etag is not "${etag}"): read it again and retry`,
      );
    }
    const stored: IamPolicy = {
      // An unset version (0) is stored as 1, as IAM answers.
      version: spec.version === 0 ? 1 : spec.version,
      bindings: spec.bindings.map((b) => ({
        role: b.role,
        members: [...b.members],
        ...(b.condition ? { condition: { ...b.condition } } : {}),
      })),
      etag: this.catalog.newId('etag-'),
    };
    entry.update({ iamPolicies: { ...entry.record.iamPolicies, [resource]: stored } });
    return stored;
  }

  /** The stored policy, without checks (undefined when none or when the instance does not exist). */
  stored(resource: string): IamPolicy | undefined {
    const parts = resource.split('/', 4);
    if (parts.length < 4) return undefined;
    return this.catalog.instance({ project: parts[1]!, instance: parts[3]! })?.record.iamPolicies?.[resource];
  }

  /** Forgets the policies of `resource` and of every resource under it (it was deleted); true when there were any. */
  forget(resource: string): boolean {
    const parts = resource.split('/', 4);
    if (parts.length < 4) return false;
    const entry = this.catalog.instance({ project: parts[1]!, instance: parts[3]! });
    const policies = entry?.record.iamPolicies;
    if (entry === undefined || policies === undefined) return false;
    const under = `${resource}/`;
    const kept = Object.entries(policies).filter(([name]) => name !== resource && !name.startsWith(under));
    if (kept.length === Object.keys(policies).length) return false;
    entry.update({ iamPolicies: Object.fromEntries(kept) });
    return true;
  }

  /** The instance entry of a resource that exists and can hold a policy. */
  private entryOf(resource: string): InstanceEntry {
    const r = policyResourceOf(resource);
    if (r === undefined) {
      throw invalidArgument(
        `"${resource}" cannot hold an IAM policy: give an instance, table, authorized view, logical view, materialized view or backup name`,
      );
    }
    this.exists[r.kind](resource);
    const entry = this.catalog.instance(r.instance);
    if (entry === undefined)
      throw new TabletopError('NotFound', `Instance projects/${r.instance.project}/instances/${r.instance.instance} not found`);
    return entry;
  }
}

/** Versions 0 and 1 hold unconditional bindings only; 3 may hold conditions (as IAM requires). */
function validateSpec(spec: IamPolicySpec): void {
  if (spec.version !== 0 && spec.version !== 1 && spec.version !== 3) {
    throw invalidArgument(`Invalid IAM policy version ${spec.version}: must be 0, 1 or 3`);
  }
  for (const b of spec.bindings) {
    if (b.role === '') throw invalidArgument('Every IAM binding needs a role');
    if (b.condition !== undefined && spec.version !== 3) {
      throw invalidArgument(`The binding of ${b.role} has a condition: a policy with conditions must be version 3`);
    }
    if (b.condition !== undefined && b.condition.expression.trim() === '') {
      throw invalidArgument(`The condition of the binding of ${b.role} has no expression`);
    }
  }
}
