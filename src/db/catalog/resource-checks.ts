import { TabletopError, invalidArgument } from '../../model/errors.js';
import { TABLE_ID_RE } from '../../model/limits.js';

/**
 * ABORTED unless `given` is absent, empty or the resource's `current` etag (an update or delete made against a
 * stale read). `what` names the resource in the message ("logical view projects/p/instances/i/logicalViews/v").
 */
export function checkEtag(what: string, current: string, given: string | undefined): void {
  if (given !== undefined && given !== '' && given !== current) {
    throw new TabletopError('Aborted', `The etag "${given}" of ${what} is not its current one: read it again and retry`);
  }
}

/** INVALID_ARGUMENT unless `id` is an Admin API child id: the table ids' alphabet, 1 to `maxLength` characters. */
export function validateChildId(kind: string, id: string, maxLength: number): void {
  if (id.length === 0 || id.length > maxLength || !TABLE_ID_RE.test(id)) {
    throw invalidArgument(`Invalid ${kind} id "${id}": must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most ${maxLength} characters`);
  }
}
