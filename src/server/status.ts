import { Status } from './status-codes.js';
import { type ErrorCode, TabletopError } from '../model/errors.js';
import type { Logger } from './logger.js';
import { boundedStatusMessage } from './transport/status-message.js';

/**
 * The one place where failures become gRPC statuses. A TabletopError maps by
 * its code; anything else is a bug in tabletop: it is logged with its stack
 * and reported as INTERNAL with its message.
 */

const CODES: Readonly<Record<ErrorCode, Status>> = {
  InvalidArgument: Status.INVALID_ARGUMENT,
  NotFound: Status.NOT_FOUND,
  AlreadyExists: Status.ALREADY_EXISTS,
  FailedPrecondition: Status.FAILED_PRECONDITION,
  OutOfRange: Status.OUT_OF_RANGE,
  ResourceExhausted: Status.RESOURCE_EXHAUSTED,
  PermissionDenied: Status.PERMISSION_DENIED,
  Unauthenticated: Status.UNAUTHENTICATED,
  Aborted: Status.ABORTED,
  Cancelled: Status.CANCELLED,
  DeadlineExceeded: Status.DEADLINE_EXCEEDED,
  Unavailable: Status.UNAVAILABLE,
  Unimplemented: Status.UNIMPLEMENTED,
  DataLoss: Status.DATA_LOSS,
  Internal: Status.INTERNAL,
};

export interface GrpcStatus {
  readonly code: Status;
  readonly details: string;
  /** A serialized google.rpc.Status for the `grpc-status-details-bin` trailer (error details the clients act on). */
  readonly detailsBin?: Buffer | undefined;
}

/** A TabletopError that carries error details for the `grpc-status-details-bin` trailer (made in convert/status-details.ts). */
export class DetailedError extends TabletopError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly statusDetails: Buffer,
  ) {
    super(code, message);
  }
}

/** The gRPC status code of an error code. */
export function grpcCode(code: ErrorCode): Status {
  return CODES[code];
}

/** The status a failure is reported with; `rpc` names the call for the log. */
export function toGrpcStatus(e: unknown, rpc: string, logger: Logger): GrpcStatus {
  if (e instanceof DetailedError) return { code: CODES[e.code], details: boundedStatusMessage(e.message), detailsBin: e.statusDetails };
  if (e instanceof TabletopError) return { code: CODES[e.code], details: boundedStatusMessage(e.message) };
  const message = e instanceof Error ? e.message : String(e);
  logger.error(`internal error in ${rpc}: ${e instanceof Error && e.stack ? e.stack : message}`);
  return { code: Status.INTERNAL, details: boundedStatusMessage(`Internal error in ${rpc}: ${message}`) };
}

/** Name of a status code for metrics and logs (e.g. "NOT_FOUND"). */
export function statusName(code: Status): string {
  return Status[code] ?? String(code);
}
