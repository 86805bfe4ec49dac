import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { invalidArgument } from '../../model/errors.js';
import { operationToProto } from '../convert/operation.js';
import type { PListOperationsRequest, PNameRequest, POperation } from '../convert/proto-types.js';
import type { AnyMethod } from '../protos.js';
import { type RpcEnv, unary, unimplementedHandler } from '../rpc.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';

/**
 * google.longrunning.Operations for the admin APIs' operations. They are all
 * done when they are returned, so Cancel has nothing to cancel (it succeeds,
 * as for any finished operation) and Wait returns at once.
 */
export function operationsService(env: RpcEnv, operations: OperationStore, methods: Record<string, AnyMethod>): UntypedServiceImplementation {
  const name = (req: PNameRequest, rpc: string): string => {
    if (!req.name) throw invalidArgument(`${rpc}: name is required`);
    return req.name;
  };
  const impl: UntypedServiceImplementation = {
    GetOperation: unary<PNameRequest, POperation>(env, 'GetOperation', (req) => operationToProto(operations.get(name(req, 'GetOperation')))),
    ListOperations: unary<PListOperationsRequest, { operations: POperation[]; nextPageToken: string }>(env, 'ListOperations', (req) => {
      if (req.filter) throw invalidArgument('ListOperations: filter is not supported by tabletop');
      const { items, nextPageToken } = page(operations.list(req.name ?? ''), (o) => o.name, req.pageSize, req.pageToken);
      return { operations: items.map(operationToProto), nextPageToken };
    }),
    DeleteOperation: unary<PNameRequest, object>(env, 'DeleteOperation', (req) => {
      operations.delete(name(req, 'DeleteOperation'));
      return {};
    }),
    CancelOperation: unary<PNameRequest, object>(env, 'CancelOperation', (req) => {
      operations.get(name(req, 'CancelOperation'));
      return {};
    }),
    WaitOperation: unary<PNameRequest, POperation>(env, 'WaitOperation', (req) => operationToProto(operations.get(name(req, 'WaitOperation')))),
  };
  for (const [n, method] of Object.entries(methods)) {
    if (impl[n] === undefined) impl[n] = unimplementedHandler(env, n, method, `${n} is not implemented by tabletop yet`);
  }
  return impl;
}
