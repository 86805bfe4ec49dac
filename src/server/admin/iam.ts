import type { DatabaseCore } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import type { Authorizer } from '../auth/authorizer.js';
import { ROLES, permissionAppliesTo } from '../auth/permissions.js';
import { policyFromProto, policyToProto } from '../convert/iam.js';
import type { PNameRequest, PPolicy, PSetIamPolicyRequest, PTestIamPermissionsRequest } from '../convert/proto-types.js';
import type { CallContext } from '../rpc.js';
import { type MethodSpec, resourceOfName, unary } from '../method-table.js';

/**
 * IAM methods of both admin services, over the policies the db stores (catalog/iam-policies.ts: instances,
 * tables, authorized views, logical and materialized views, backups).
 * SetIamPolicy accepts the roles tabletop knows (permissions.ts ROLES) and members `user:`, `serviceAccount:`,
 * `group:` and `domain:`; `allUsers` and `allAuthenticatedUsers` are refused, as Bigtable refuses them.
 * TestIamPermissions answers from the policies for the caller; an anonymous caller (authentication off, no
 * credentials) is answered as an emulator answers: every permission asked for.
 */
export function iamMethods(
  db: DatabaseCore,
  authorizer: Authorizer,
): Record<'GetIamPolicy' | 'SetIamPolicy' | 'TestIamPermissions', MethodSpec> {
  return {
    GetIamPolicy: unary<PNameRequest & { resource?: string | null }, PPolicy>({ resource: (req) => resourceOfName(req.resource) }, (req) =>
      policyToProto(db.getIamPolicy(required(req.resource))),
    ),
    SetIamPolicy: unary<PSetIamPolicyRequest, PPolicy>({ resource: (req) => resourceOfName(req.resource) }, async (req) => {
      const resource = required(req.resource);
      const { spec, etag } = policyFromProto(req.policy);
      for (const b of spec.bindings) {
        if (!ROLES.has(b.role)) {
          throw invalidArgument(`Role ${b.role} is not supported for this resource (tabletop knows ${[...ROLES.keys()].join(', ')})`);
        }
        for (const m of b.members) validateMember(m);
      }
      return policyToProto(await db.setIamPolicy(resource, spec, etag));
    }),
    TestIamPermissions: unary<PTestIamPermissionsRequest, { permissions: string[] }>(
      { resource: (req) => resourceOfName(req.resource) },
      (req, ctx: CallContext) => {
        const resource = required(req.resource);
        db.getIamPolicy(resource); // NOT_FOUND for a resource that does not exist
        const asked = [...(req.permissions ?? [])];
        if (ctx.principal === undefined) return { permissions: asked };
        const kind = resourceOfName(resource)?.kind;
        for (const p of asked) {
          if (p.includes('*')) throw invalidArgument(`Permissions with wildcards are not allowed: "${p}"`);
          if (kind === undefined || !permissionAppliesTo(p, kind)) throw invalidArgument(`Permission ${p} is not valid for this resource`);
        }
        return { permissions: authorizer.granted(ctx.principal, asked, resource) };
      },
    ),
  };
}

function required(resource: string | null | undefined): string {
  if (!resource) throw invalidArgument('resource is required');
  return resource;
}

const MEMBER_KINDS = ['user', 'serviceAccount', 'group', 'domain'];

function validateMember(member: string): void {
  if (member === 'allUsers' || member === 'allAuthenticatedUsers') {
    throw invalidArgument(`Bigtable resources cannot be granted to ${member}`);
  }
  const colon = member.indexOf(':');
  if (colon <= 0 || colon === member.length - 1 || !MEMBER_KINDS.includes(member.slice(0, colon))) {
    throw invalidArgument(`Invalid member "${member}": expected user:, serviceAccount:, group: or domain: followed by an email or domain`);
  }
}
