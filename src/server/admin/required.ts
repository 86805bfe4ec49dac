import { invalidArgument } from '../../model/errors.js';

/** A request's required string field, or INVALID_ARGUMENT naming the RPC and the field. */
export function required(v: string | null | undefined, rpc: string, field: string): string {
  if (!v) throw invalidArgument(`${rpc}: ${field} is required`);
  return v;
}
