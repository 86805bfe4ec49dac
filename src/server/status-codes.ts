/**
 * The gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html),
 * with the same names and numbers as @grpc/grpc-js's `status` enum. Defined
 * here so that the server's own transport does not load grpc-js (about 45 ms
 * and 10 MiB of a start) just for these numbers; status-codes.test.ts keeps
 * the two equal.
 */
export enum Status {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}
