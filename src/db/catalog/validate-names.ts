import { invalidArgument } from '../../model/errors.js';
import { LIMITS } from '../../model/limits.js';

/**
 * Id rules of the Instance Admin API (as the Cloud console and API enforce
 * them). Implicit instances (used without being created) skip these: a
 * client may name any instance it likes.
 */
const INSTANCE_ID_RE = /^[a-z][a-z0-9-]{4,31}[a-z0-9]$/;
const CLUSTER_ID_RE = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const APP_PROFILE_ID_RE = /^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/;
const LOCATION_RE = /^projects\/[^/]+\/locations\/[^/]+$/;

export function validateInstanceId(id: string): void {
  if (!INSTANCE_ID_RE.test(id)) {
    throw invalidArgument(
      `Invalid instance id "${id}": must be 6 to 33 characters of lowercase letters, digits and hyphens, start with a letter and not end with a hyphen`,
    );
  }
}

export function validateDisplayName(name: string): void {
  if (name.length < 4 || name.length > 30) {
    throw invalidArgument(`Invalid display name "${name}": must be 4 to 30 characters`);
  }
}

export function validateClusterId(id: string): void {
  if (!CLUSTER_ID_RE.test(id)) {
    throw invalidArgument(
      `Invalid cluster id "${id}": must be 6 to 30 characters of lowercase letters, digits and hyphens, start with a letter and not end with a hyphen`,
    );
  }
}

export function validateAppProfileId(id: string): void {
  if (id.length > 50 || !APP_PROFILE_ID_RE.test(id)) {
    throw invalidArgument(`Invalid app profile id "${id}": must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 characters`);
  }
}

export function validateLocation(location: string): void {
  if (!LOCATION_RE.test(location)) {
    throw invalidArgument(`Invalid location "${location}": expected projects/{project}/locations/{zone}`);
  }
}

export function validateServeNodes(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > LIMITS.maxServeNodes) {
    throw invalidArgument(`Invalid serve_nodes ${n}: must be a whole number from 1 to ${LIMITS.maxServeNodes} (tabletop models each node)`);
  }
}
