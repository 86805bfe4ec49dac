import type { IamBinding } from '../../db/api.js';

/**
 * Project-level bindings: who holds which role on a whole project (the project is not a Bigtable resource, so
 * its policy lives outside the catalog: `tabletop auth grant ...` keeps it in the auth state file). This is the
 * bootstrap: on a fresh server with authentication on, nobody holds anything until a project binding grants it.
 */
export interface ProjectPolicySource {
  bindings(project: string): readonly IamBinding[];
}

/** No project-level bindings. */
export const NO_PROJECT_BINDINGS: ProjectPolicySource = Object.freeze({ bindings: (): readonly IamBinding[] => [] });
