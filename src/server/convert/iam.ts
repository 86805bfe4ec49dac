import { invalidArgument } from '../../model/errors.js';
import type { PPolicy } from './proto-types.js';

/**
 * google.iam.v1.Policy ↔ a plain policy. tabletop does not enforce IAM: it
 * stores the policies clients set (in memory) and reports every permission as
 * granted.
 */
export interface IamBinding {
  readonly role: string;
  readonly members: readonly string[];
  readonly condition?: { readonly expression: string; readonly title: string; readonly description: string; readonly location: string };
}

export interface IamPolicy {
  readonly version: number;
  readonly bindings: readonly IamBinding[];
  /** Opaque version tag (bytes), for read-modify-write of policies. */
  readonly etag: Buffer;
}

interface PBinding {
  role?: string | null;
  members?: string[] | null;
  condition?: { expression?: string | null; title?: string | null; description?: string | null; location?: string | null } | null;
}

export function policyFromProto(p: PPolicy | null | undefined): IamPolicy {
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
  return { version: p.version ?? 0, bindings, etag: Buffer.from(p.etag ?? Buffer.alloc(0)) };
}

export function policyToProto(p: IamPolicy): PPolicy {
  return {
    version: p.version,
    bindings: p.bindings.map((b) => ({ role: b.role, members: [...b.members], ...(b.condition ? { condition: { ...b.condition } } : {}) })),
    etag: p.etag,
  };
}
