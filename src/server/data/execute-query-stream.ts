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
 * a resumed attempt with nothing left sends its token again, alone. When the
 * engine's scan checkpoints (a sparse scan: many rows scanned without a result
 * row), the rows held go out as a batch, or a token-only message is sent, and
 * the tokens from then on resume the scan after the checkpoint's key
 * (bigtable-wire.md 1.3: token-only messages can checkpoint sparse scans).
 */

/** Where a resume token says a scan checkpointed: after `key`, once `base` rows had been released. */
export interface ScanCheckpoint {
  readonly key: Uint8Array;
  readonly base: number;
}

export interface ExecuteQueryStreamOptions {
  /** A batch ends once it holds this many bytes (a row is never split)... */
  readonly batchBytes: number;
  /** ...or this many rows. */
  readonly batchRows: number;
  /** The most batch bytes per message. */
  readonly chunkBytes: number;
  /** Rows released before this attempt (the resume token's count); 0 for a first attempt. */
  readonly skipped: number;
  /** The checkpoint the resume token holds, if any. */
  readonly checkpoint?: ScanCheckpoint | undefined;
  /** This attempt resumes after a token. */
  readonly resumed: boolean;
  /** The token after `rows` rows, with the latest checkpoint. */
  token(rows: number, checkpoint: ScanCheckpoint | undefined): Uint8Array;
  /** The batch checksum; default CRC32C (tests give another to reach the zero case). */
  readonly checksum?: (b: Uint8Array) => number;
}

export interface ExecuteQueryStream {
  /** Streams `rows`; returns false when the client went away first. */
  run(rows: AsyncIterable<readonly SqlValue[]>): Promise<boolean>;
  /**
   * The engine's scan checkpointed after `key` (engine.ts Checkpoints: every row before it has been handed over):
   * the rows held are sent as a batch, or a token-only message is sent, with a token that resumes after `key`.
   */
  checkpoint(key: Uint8Array): Promise<void>;
}

/** Streams `rows` (without checkpoints); returns false when the client went away first. */
export async function streamExecuteQuery(
  rows: AsyncIterable<readonly SqlValue[]>,
  types: readonly SqlType[],
  out: StreamWriter<ExecuteQueryFrame>,
  opts: ExecuteQueryStreamOptions,
): Promise<boolean> {
  return executeQueryStream(types, out, opts).run(rows);
}

export function executeQueryStream(
  types: readonly SqlType[],
  out: StreamWriter<ExecuteQueryFrame>,
  opts: ExecuteQueryStreamOptions,
): ExecuteQueryStream {
  const batch = new ProtoRowsBatch(types);
  let released = opts.skipped;
  let at = opts.checkpoint;
  let first = true;
  let gone = false;
  const send = async (frame: ExecuteQueryFrame): Promise<boolean> => {
    const w = out.write(first ? { ...frame, reset: true } : frame);
    first = false;
    if (!(await w)) gone = true;
    return !gone;
  };
  const flush = async (): Promise<boolean> => {
    const n = batch.rows;
    const { bytes, crc } = checksummed(batch.take(), opts.checksum);
    released += n;
    for (let from = 0; from < bytes.length; from += opts.chunkBytes) {
      const end = Math.min(bytes.length, from + opts.chunkBytes);
      const data = bytes.subarray(from, end);
      const last = end === bytes.length;
      if (!(await send(last ? { data, checksum: crc, token: opts.token(released, at) } : { data }))) return false;
    }
    return true;
  };
  return {
    async run(rows) {
      for await (const row of rows) {
        if (gone) return false;
        batch.add(row);
        if (batch.bytes >= opts.batchBytes || batch.rows >= opts.batchRows) {
          if (!(await flush())) return false;
        }
      }
      if (gone) return false;
      if (batch.rows > 0) return flush();
      if (first && opts.resumed) return send({ token: opts.token(released, at) });
      return true;
    },
    async checkpoint(key) {
      if (gone) return;
      at = { key, base: released + batch.rows };
      if (batch.rows > 0) await flush();
      else await send({ token: opts.token(released, at) });
    },
  };
}
