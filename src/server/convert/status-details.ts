import { Status } from '../status-codes.js';
import { DetailedError } from '../status.js';
import { createWriter } from './wire.js';

/**
 * Error details (google.rpc.Status in the `grpc-status-details-bin` trailer).
 *
 * Status := code(1) int32, message(2) string, details(3) repeated Any{type_url(1), value(2)}
 * PreconditionFailure := violations(1) repeated {type(1), subject(2), description(3)}
 */

const PRECONDITION_FAILURE_URL = 'type.googleapis.com/google.rpc.PreconditionFailure';

/**
 * FAILED_PRECONDITION for a prepared query that can no longer run: the
 * clients see the violation type PREPARED_QUERY_EXPIRED and prepare again
 * (before the first resume token) instead of failing.
 */
export function preparedQueryExpired(message: string): DetailedError {
  const violation = createWriter()
    .uint32((1 << 3) | 2)
    .string('PREPARED_QUERY_EXPIRED')
    .uint32((3 << 3) | 2)
    .string(message)
    .finish();
  const failure = createWriter()
    .uint32((1 << 3) | 2)
    .bytes(violation)
    .finish();
  const any = createWriter()
    .uint32((1 << 3) | 2)
    .string(PRECONDITION_FAILURE_URL)
    .uint32((2 << 3) | 2)
    .bytes(failure)
    .finish();
  const status = createWriter()
    .uint32(1 << 3)
    .int32(Status.FAILED_PRECONDITION)
    .uint32((2 << 3) | 2)
    .string(message)
    .uint32((3 << 3) | 2)
    .bytes(any)
    .finish();
  return new DetailedError('FailedPrecondition', message, Buffer.from(status));
}
