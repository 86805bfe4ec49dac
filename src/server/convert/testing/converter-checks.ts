import { isTabletopError } from '../../../model/errors.js';
import type { AnyMethod } from '../../protos.js';

/** Shared set-up of the converter tests. */

/** A Latin-1 byte string as the Buffer the loader carries for bytes fields. */
export function latin1Buffer(s: string): Buffer {
  return Buffer.from(s, 'latin1');
}

/** The code of the TabletopError `f` throws (a marker string for any other error); undefined if it returns. */
export function thrownCode(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isTabletopError(e) ? e.code : `not a TabletopError: ${String(e)}`;
  }
  return undefined;
}

/** Turns a request object into one exactly as the loader decodes it from the wire (what converters receive). */
export function viaWire(method: AnyMethod): <T>(o: object) => T {
  return <T>(o: object): T => method.requestDeserialize(method.requestSerialize(o)) as T;
}
