/**
 * The one error type of tabletop. Every failure that reaches a client is a
 * TabletopError; its code maps onto a gRPC status code in exactly one place
 * (src/server/status.ts). Anything else that escapes is a bug and is reported
 * as INTERNAL.
 */
export type ErrorCode =
  | 'InvalidArgument'
  | 'NotFound'
  | 'AlreadyExists'
  | 'FailedPrecondition'
  | 'OutOfRange'
  | 'ResourceExhausted'
  | 'PermissionDenied'
  | 'Unauthenticated'
  | 'Aborted'
  | 'Cancelled'
  | 'DeadlineExceeded'
  | 'Unavailable'
  | 'Unimplemented'
  | 'DataLoss'
  | 'Internal';

export class TabletopError extends Error {
  override readonly name = 'TabletopError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `e` is a TabletopError, optionally of the given code. */
export function isTabletopError(e: unknown, code?: ErrorCode): e is TabletopError {
  return e instanceof TabletopError && (code === undefined || e.code === code);
}

export const invalidArgument = (message: string): TabletopError => new TabletopError('InvalidArgument', message);
export const notFound = (message: string): TabletopError => new TabletopError('NotFound', message);
export const alreadyExists = (message: string): TabletopError => new TabletopError('AlreadyExists', message);
export const failedPrecondition = (message: string): TabletopError => new TabletopError('FailedPrecondition', message);
export const unimplemented = (message: string): TabletopError => new TabletopError('Unimplemented', message);
/** Corruption: never turned into a wrong answer. `where` names the file and offset. */
export const dataLoss = (message: string): TabletopError => new TabletopError('DataLoss', message);
