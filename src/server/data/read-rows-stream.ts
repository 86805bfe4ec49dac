import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ByteString } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';
import type { RowPuller } from '../../db/api.js';
import { type ReadRowsFrame, rowSize } from '../convert/read-rows-encoder.js';
import type { StreamWriter } from '../rpc.js';

/**
 * Streams a RowPuller as ReadRows response frames:
 *  - whole rows only, several per frame; a frame is sent once it reaches
 *    `targetFrameBytes`, or as soon as the reader would block (its next()
 *    returns a promise), so a client never waits for rows the server has;
 *  - while the reader is busy (a promise is pending), if at least
 *    `heartbeatRows` rows were examined since the last frame without output, a
 *    frame carrying only last_scanned_row_key is sent (checked when the reader
 *    blocks and then every `heartbeatMillis`); clients resume after that key on
 *    retry instead of rescanning the filtered stretch;
 *  - backpressure: when the client is slow, the writer's promise is awaited
 *    and the reader is not pulled meanwhile;
 *  - stops as soon as the call is cancelled.
 *
 * Heartbeat safety relies on the RowPuller's `lastScannedKey`: it names a row
 * whose fate is decided (returned or filtered out), and any row it returned
 * has reached this loop before a timer can fire (rows are handed over in
 * promise reactions, which run before timers). A heartbeat never repeats or
 * goes back on a key already sent.
 */

export interface ReadRowsStreamOptions {
  readonly targetFrameBytes: number;
  readonly heartbeatRows: number;
  readonly heartbeatMillis: number;
  readonly valueChunkBytes: number;
  readonly reversed: boolean;
  /** Yield to the event loop at least this often (ms) during long synchronous scans. */
  readonly yieldEveryMillis: number;
}

export interface ReadRowsStreamResult {
  /** False when the call ended early (cancelled or the client went away). */
  readonly completed: boolean;
  readonly framesSent: number;
}

export async function streamReadRows(
  reader: RowPuller,
  out: StreamWriter<ReadRowsFrame>,
  opts: ReadRowsStreamOptions,
  cancelled: () => boolean,
): Promise<ReadRowsStreamResult> {
  let batch: Row[] = [];
  let batchBytes = 0;
  let framesSent = 0;
  /** rowsSeen when the last frame was sent, and when the last row of the batch was produced. */
  let rowsSeenAtLastFrame = 0;
  let rowsSeenAtBatchEnd = 0;
  let lastKeySent: ByteString | undefined;
  let lastYield = performance.now();
  let heartbeatInFlight = false;
  let gone = false;

  const write = (frame: ReadRowsFrame, rowsSeen: number): boolean | Promise<boolean> => {
    framesSent++;
    rowsSeenAtLastFrame = rowsSeen;
    return out.write(frame);
  };

  const send = async (frame: ReadRowsFrame, rowsSeen: number): Promise<boolean> => {
    const w = write(frame, rowsSeen);
    const ok = w instanceof Promise ? await w : w;
    if (ok && performance.now() - lastYield >= opts.yieldEveryMillis) {
      await yieldToLoop();
      lastYield = performance.now();
    }
    if (!ok) gone = true;
    return ok && !cancelled();
  };

  const flush = async (): Promise<boolean> => {
    if (batch.length === 0) return true;
    const rows = batch;
    batch = [];
    batchBytes = 0;
    lastKeySent = rows[rows.length - 1]!.key;
    return send({ rows }, rowsSeenAtBatchEnd);
  };

  /** The heartbeat key to send now, if one is due. */
  const heartbeatKey = (): ByteString | undefined => {
    const scanned = reader.lastScannedKey;
    if (scanned === undefined || reader.stats.rowsSeen - rowsSeenAtLastFrame < opts.heartbeatRows) return undefined;
    if (lastKeySent !== undefined && (opts.reversed ? scanned >= lastKeySent : scanned <= lastKeySent)) return undefined;
    return scanned;
  };

  /** Sends a heartbeat from a timer while the reader is busy; never overlaps another. */
  const heartbeatTick = (): void => {
    if (heartbeatInFlight || gone || cancelled() || batch.length > 0) return;
    const key = heartbeatKey();
    if (key === undefined) return;
    lastKeySent = key;
    const w = write({ rows: [], lastScannedRowKey: key }, reader.stats.rowsSeen);
    if (w instanceof Promise) {
      heartbeatInFlight = true;
      void w.then((ok) => {
        heartbeatInFlight = false;
        if (!ok) gone = true;
      });
    } else if (!w) gone = true;
  };

  for (;;) {
    if (cancelled() || gone) return { completed: false, framesSent };
    let next = reader.next();
    if (next instanceof Promise) {
      if (!(await flush())) return { completed: false, framesSent };
      const key = heartbeatKey();
      if (key !== undefined) {
        lastKeySent = key;
        if (!(await send({ rows: [], lastScannedRowKey: key }, reader.stats.rowsSeen))) return { completed: false, framesSent };
      }
      const timer = setInterval(heartbeatTick, opts.heartbeatMillis);
      try {
        next = await next;
      } finally {
        clearInterval(timer);
      }
    }
    if (next === undefined) break;
    batch.push(next);
    rowsSeenAtBatchEnd = reader.stats.rowsSeen;
    batchBytes += rowSize(next, opts.valueChunkBytes);
    if (batchBytes >= opts.targetFrameBytes && !(await flush())) return { completed: false, framesSent };
  }
  if (!(await flush())) return { completed: false, framesSent };
  return { completed: !gone, framesSent };
}
