import type { SqlType, SqlValue } from '../../sql/types.js';
import { type ExecuteQueryFrame, ProtoRowsBatch, checksummed } from '../convert/execute-query-encoder.js';
import type { StreamWriter } from '../rpc.js';

/**
 * ExecuteQuery's response stream (docs: bigtable-wire.md 1.3): result rows
 * in batches of whole rows, each a serialized ProtoRows, bounded by bytes and
 * by rows (so that memory stays bounded whatever the result's size); each
 * batch is sent in pieces of at most `chunkBytes`, the last piece carrying
 * the batch's CRC32C and a resume token naming the rows released so far. The
 * attempt's first message has `reset`. Nothing is sent for an empty result;
 * a resumed attempt with nothing left sends its token again, alone.
 */

export interface ExecuteQueryStreamOptions {
  /** A batch ends once it holds this many bytes (a row is never split)... */
  readonly batchBytes: number;
  /** ...or this many rows. */
  readonly batchRows: number;
  /** The most batch bytes per message. */
  readonly chunkBytes: number;
  /** Rows released before this attempt (the resume token's count); 0 for a first attempt. */
  readonly skipped: number;
  /** This attempt resumes after a token. */
  readonly resumed: boolean;
  /** The token after `rows` rows. */
  token(rows: number): Uint8Array;
  /** The batch checksum; default CRC32C (tests give another to reach the zero case). */
  readonly checksum?: (b: Uint8Array) => number;
}

/** Streams `rows`; returns false when the client went away first. */
export async function streamExecuteQuery(
  rows: AsyncIterable<readonly SqlValue[]>,
  types: readonly SqlType[],
  out: StreamWriter<ExecuteQueryFrame>,
  opts: ExecuteQueryStreamOptions,
): Promise<boolean> {
  const batch = new ProtoRowsBatch(types);
  let released = opts.skipped;
  let first = true;
  const send = async (frame: ExecuteQueryFrame): Promise<boolean> => {
    const w = out.write(first ? { ...frame, reset: true } : frame);
    first = false;
    return w instanceof Promise ? w : w;
  };
  const flush = async (): Promise<boolean> => {
    const n = batch.rows;
    const { bytes, crc } = checksummed(batch.take(), opts.checksum);
    released += n;
    for (let at = 0; at < bytes.length; at += opts.chunkBytes) {
      const end = Math.min(bytes.length, at + opts.chunkBytes);
      const data = bytes.subarray(at, end);
      const last = end === bytes.length;
      if (!(await send(last ? { data, checksum: crc, token: opts.token(released) } : { data }))) return false;
    }
    return true;
  };
  for await (const row of rows) {
    batch.add(row);
    if (batch.bytes >= opts.batchBytes || batch.rows >= opts.batchRows) {
      if (!(await flush())) return false;
    }
  }
  if (batch.rows > 0) return flush();
  if (first && opts.resumed) return send({ token: opts.token(released) });
  return true;
}
