import { TabletopError, invalidArgument } from '../../model/errors.js';
import { errorAt } from '../syntax/source-text.js';

/**
 * A query's runtime failure (overflow, division by zero, a bad cast): OUT_OF_RANGE, as GoogleSQL's evaluator
 * reports them. The SAFE_ forms of functions turn exactly these into NULL.
 */
export function evalError(message: string): TabletopError {
  return new TabletopError('OutOfRange', message);
}

/** True when `e` is a runtime evaluation error (what SAFE_ forms swallow). */
export function isEvalError(e: unknown): boolean {
  return e instanceof TabletopError && e.code === 'OutOfRange';
}

/** An analysis failure at a position of the query: INVALID_ARGUMENT `line L, column C: ...`. */
export function queryError(pos: { readonly line: number; readonly column: number } | undefined, message: string): TabletopError {
  return pos === undefined ? invalidArgument(message) : errorAt(pos, message);
}
