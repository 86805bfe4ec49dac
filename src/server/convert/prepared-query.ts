import { invalidArgument } from '../../model/errors.js';
import type { PreparedQuery } from '../../sql/engine.js';
import type { SqlType } from '../../sql/types.js';

/**
 * The `prepared_query` bytes the server hands out: the engine's own token
 * wrapped with what the server needs to run it without the engine's help,
 * the declared parameter types (to check and convert ExecuteQuery's params)
 * and the result columns' types (to encode the rows).
 *
 *   version(1) = 1, header length u32 BE, header (JSON {p: [[name, type]], c: [type]}), engine token
 */

const VERSION = 1;

export interface PreparedEnvelope {
  readonly paramTypes: ReadonlyMap<string, SqlType>;
  readonly columnTypes: readonly SqlType[];
  readonly engineToken: Uint8Array;
}

export function wrapPreparedQuery(p: PreparedQuery): Uint8Array {
  const header = Buffer.from(JSON.stringify({ p: [...p.paramTypes], c: p.columns.map((c) => c.type) }), 'utf8');
  const out = Buffer.alloc(5 + header.length + p.token.length);
  out[0] = VERSION;
  out.writeUInt32BE(header.length, 1);
  header.copy(out, 5);
  out.set(p.token, 5 + header.length);
  return out;
}

export function unwrapPreparedQuery(bytes: Uint8Array): PreparedEnvelope {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bad = (): never => {
    throw invalidArgument('prepared_query is not one this server prepared: call PrepareQuery again');
  };
  if (b.length < 5 || b[0] !== VERSION) return bad();
  const len = b.readUInt32BE(1);
  if (5 + len > b.length) return bad();
  let header: { p: [string, SqlType][]; c: SqlType[] };
  try {
    header = JSON.parse(b.subarray(5, 5 + len).toString('utf8')) as typeof header;
  } catch {
    return bad();
  }
  if (!Array.isArray(header.p) || !Array.isArray(header.c)) return bad();
  return { paramTypes: new Map(header.p), columnTypes: header.c, engineToken: b.subarray(5 + len) };
}
