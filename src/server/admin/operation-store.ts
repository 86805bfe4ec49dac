import { notFound } from '../../model/errors.js';
import type { OperationMetadataType, OperationRecord, OperationResult } from '../convert/operation.js';

/**
 * Finished long-running operations, kept in memory for GetOperation and
 * ListOperations. Bounded: once `capacity` are kept, the oldest is forgotten.
 * Names look like `{resource}/operations/{id}`.
 */
export class OperationStore {
  private readonly ops = new Map<string, OperationRecord>();
  private counter = 0;

  constructor(private readonly capacity: number) {}

  /** Records a finished operation on `resource` and returns it. */
  add(
    resource: string,
    result: OperationResult,
    metadataType: OperationMetadataType,
    startMillis: number,
    links: Pick<OperationRecord, 'optimizeTableOperationName'> = {},
  ): OperationRecord {
    const id = `${Date.now().toString(36)}-${(++this.counter).toString(36)}`;
    const record: OperationRecord = {
      name: `${resource}/operations/${id}`,
      result,
      metadataType,
      startMillis,
      endMillis: Date.now(),
      ...links,
    };
    this.ops.set(record.name, record);
    while (this.ops.size > this.capacity) {
      const oldest = this.ops.keys().next();
      if (oldest.done === true) break;
      this.ops.delete(oldest.value);
    }
    return record;
  }

  get(name: string): OperationRecord {
    const op = this.ops.get(name);
    if (op === undefined) throw notFound(`Operation "${name}" not found (tabletop keeps the last ${this.capacity} operations, in memory)`);
    return op;
  }

  /** Operations under `parent` (all when it is empty or "operations"), oldest first. */
  list(parent: string): OperationRecord[] {
    const all = [...this.ops.values()];
    if (parent === '' || parent === 'operations') return all;
    const prefix = parent.endsWith('/') ? parent : parent + '/';
    return all.filter((o) => o.name.startsWith(prefix));
  }

  delete(name: string): void {
    if (!this.ops.delete(name)) throw notFound(`Operation "${name}" not found`);
  }
}
