import type { DatabaseCore } from '../../db/api.js';
import { invalidArgument, unimplemented, TabletopError } from '../../model/errors.js';
import { parseInstanceName, parseTableName } from '../../model/names.js';
import { type IamPolicy, policyFromProto, policyToProto } from '../convert/iam.js';
import type { PNameRequest, PPolicy, PSetIamPolicyRequest, PTestIamPermissionsRequest } from '../convert/proto-types.js';
import { type MethodSpec, resourceOfName, unary } from '../method-table.js';

/**
 * IAM methods of both admin services. tabletop does not enforce IAM: policies
 * are stored per resource (in memory, not persisted) and returned as set, and
 * TestIamPermissions reports every permission asked for as granted. The
 * resource (table or instance) must exist.
 */
export class IamPolicies {
  private readonly policies = new Map<string, IamPolicy>();
  private version = 0;

  get(resource: string): IamPolicy {
    return this.policies.get(resource) ?? { version: 1, bindings: [], etag: Buffer.from('v0') };
  }

  set(resource: string, policy: IamPolicy): IamPolicy {
    const current = this.get(resource);
    if (policy.etag.length > 0 && !policy.etag.equals(current.etag)) {
      throw new TabletopError(
        'Aborted',
        `SetIamPolicy: the policy of ${resource} changed since it was read (etag mismatch); read it again and retry`,
      );
    }
    const stored: IamPolicy = { ...policy, etag: Buffer.from(`v${++this.version}`) };
    this.policies.set(resource, stored);
    return stored;
  }
}

function checkResource(db: DatabaseCore, resource: string | null | undefined): string {
  if (!resource) throw invalidArgument('resource is required');
  const parts = resource.split('/');
  if (parts.length === 6 && parts[4] === 'tables') db.getTable(parseTableName(resource));
  else if (parts.length === 4 && parts[2] === 'instances') db.getInstance(parseInstanceName(resource));
  else throw unimplemented(`IAM policies on "${resource}" are not implemented by tabletop yet (tables and instances only)`);
  return resource;
}

/** The IAM methods, for a service's ServiceSpec; each targets the resource its request names. */
export function iamMethods(
  db: DatabaseCore,
  policies: IamPolicies,
): Record<'GetIamPolicy' | 'SetIamPolicy' | 'TestIamPermissions', MethodSpec> {
  return {
    GetIamPolicy: unary<PNameRequest & { resource?: string | null }, PPolicy>({ resource: (req) => resourceOfName(req.resource) }, (req) =>
      policyToProto(policies.get(checkResource(db, req.resource))),
    ),
    SetIamPolicy: unary<PSetIamPolicyRequest, PPolicy>({ resource: (req) => resourceOfName(req.resource) }, (req) => {
      const resource = checkResource(db, req.resource);
      return policyToProto(policies.set(resource, policyFromProto(req.policy)));
    }),
    TestIamPermissions: unary<PTestIamPermissionsRequest, { permissions: string[] }>(
      { resource: (req) => resourceOfName(req.resource) },
      (req) => {
        checkResource(db, req.resource);
        return { permissions: [...(req.permissions ?? [])] };
      },
    ),
  };
}
