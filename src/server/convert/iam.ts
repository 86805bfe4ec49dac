import type { IamBinding, IamPolicy, IamPolicySpec } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import type { PPolicy } from './proto-types.js';

/** google.iam.v1.Policy ↔ the db's IamPolicy. The etag travels as the bytes of the db's etag string. */

interface PBinding {
  role?: string | null;
  members?: string[] | null;
  condition?: { expression?: string | null; title?: string | null; description?: string | null; location?: string | null } | null;
}

/** SetIamPolicy's policy, and the etag it was read with (undefined when it carries none). */
export function policyFromProto(p: PPolicy | null | undefined): { spec: IamPolicySpec; etag: string | undefined } {
  if (p == null) throw invalidArgument('SetIamPolicy: policy is required');
  const bindings = ((p.bindings ?? []) as PBinding[]).map((b): IamBinding => {
    if (!b.role) throw invalidArgument('SetIamPolicy: every binding needs a role');
    const base = { role: b.role, members: [...(b.members ?? [])] };
    if (b.condition == null) return base;
    const c = b.condition;
    return {
      ...base,
      condition: { expression: c.expression ?? '', title: c.title ?? '', description: c.description ?? '', location: c.location ?? '' },
    };
  });
  const etag = p.etag == null || p.etag.length === 0 ? undefined : Buffer.from(p.etag).toString('utf8');
  return { spec: { version: p.version ?? 0, bindings }, etag };
}

export function policyToProto(p: IamPolicy): PPolicy {
  return {
    version: p.version,
    bindings: p.bindings.map((b) => ({ role: b.role, members: [...b.members], ...(b.condition ? { condition: { ...b.condition } } : {}) })),
    etag: Buffer.from(p.etag, 'utf8'),
  };
}
