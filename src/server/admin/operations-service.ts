import { invalidArgument } from '../../model/errors.js';
import { operationToProto } from '../convert/operation.js';
import type { PListOperationsRequest, PNameRequest, POperation } from '../convert/proto-types.js';
import { type ServiceSpec, resource, resourceOfName, unary } from '../method-table.js';
import { SERVICES } from '../protos.js';
import type { OperationStore } from './operation-store.js';
import { page } from './paging.js';

/**
 * google.longrunning.Operations for the admin APIs' operations. They are all
 * done when they are returned, so Cancel has nothing to cancel (it succeeds,
 * as for any finished operation) and Wait returns at once.
 */
export function operationsService(operations: OperationStore): ServiceSpec {
  const name = (req: PNameRequest, rpc: string): string => {
    if (!req.name) throw invalidArgument(`${rpc}: name is required`);
    return req.name;
  };
  const methods = {
    GetOperation: unary<PNameRequest, POperation>({ resource: (req) => resource('operation', req.name) }, (req) =>
      operationToProto(operations.get(name(req, 'GetOperation'))),
    ),
    ListOperations: unary<PListOperationsRequest, { operations: POperation[]; nextPageToken: string }>(
      { resource: (req) => resourceOfName(req.name) },
      (req) => {
        if (req.filter) throw invalidArgument('ListOperations: filter is not supported by tabletop');
        const { items, nextPageToken } = page(operations.list(req.name ?? ''), (o) => o.name, req.pageSize, req.pageToken);
        return { operations: items.map(operationToProto), nextPageToken };
      },
    ),
    DeleteOperation: unary<PNameRequest, object>({ resource: (req) => resource('operation', req.name) }, (req) => {
      operations.delete(name(req, 'DeleteOperation'));
      return {};
    }),
    CancelOperation: unary<PNameRequest, object>({ resource: (req) => resource('operation', req.name) }, (req) => {
      operations.get(name(req, 'CancelOperation'));
      return {};
    }),
    WaitOperation: unary<PNameRequest, POperation>({ resource: (req) => resource('operation', req.name) }, (req) =>
      operationToProto(operations.get(name(req, 'WaitOperation'))),
    ),
  };
  return { service: SERVICES.operations, methods };
}
