import type { Principal } from './principal.js';

/**
 * Decides whether a caller holds an IAM permission on a resource, from the
 * policies on the resource and its parents (an authorized view's table, a
 * table's instance, an instance's project). The gRPC access check and the
 * HTTP server both ask it.
 */
export interface Authorizer {
  /**
   * Returns when `principal` holds `permission` (e.g. `bigtable.tables.readRows`)
   * on `resource` (a full name, e.g. projects/p/instances/i/tables/t) or one
   * of its parents; throws a TabletopError PermissionDenied naming the
   * permission and the resource otherwise (an anonymous caller holds only
   * what `allUsers` is granted).
   */
  check(principal: Principal | undefined, permission: string, resource: string): void;
  /** Those of `permissions` that `principal` holds on `resource` (TestIamPermissions). */
  granted(principal: Principal | undefined, permissions: readonly string[], resource: string): string[];
}
