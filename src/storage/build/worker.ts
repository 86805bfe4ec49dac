/**
 * A build worker's thread (see protocol.ts): runs SSTable writers over files
 * that stream their bytes back to the serving thread. It holds no state but
 * the builds in progress, so a worker that dies loses only those.
 */
import { parentPort } from 'node:worker_threads';
import { isTabletopError } from '../../model/errors.js';
import type { WritableFile } from '../fs/file-system.js';
import { createSSTableWriter, type SSTableWriter } from '../sstable/index.js';
import { type FromWorker, readEntryBatch, type ToWorker } from './protocol.js';

/**
 * Output is sent back in chunks of about this size. The serving thread writes each in one call: 1 MiB held it
 * ~2.5 ms a chunk (point reads during a compaction with one worker: p99 3.6 ms; 128 KiB: 3.2 ms, in
 * bench/compaction-latency.ts --threads 1 --slice-ms 0.25).
 */
const CHUNK_BYTES = 128 * 1024;

const port = parentPort;
if (port === null) throw new Error('storage/build/worker.ts runs only as a worker thread');

function send(message: FromWorker, transfer?: ArrayBuffer[]): void {
  port!.postMessage(message, transfer);
}

/** A WritableFile whose bytes go back to the serving thread, which writes and syncs the real file. */
/** Output chunks the serving thread has handed back, filled again before new ones are allocated. */
const spareChunks: ArrayBuffer[] = [];

function newChunk(): Buffer {
  const spare = spareChunks.pop();
  return spare === undefined ? Buffer.allocUnsafeSlow(CHUNK_BYTES) : Buffer.from(spare);
}

class StreamedFile implements WritableFile {
  private chunk = newChunk();
  private used = 0;
  size = 0;

  constructor(
    readonly id: number,
    readonly path: string,
  ) {}

  get length(): number {
    return this.size;
  }

  append(data: Uint8Array): void {
    let from = 0;
    while (from < data.byteLength) {
      const n = Math.min(data.byteLength - from, this.chunk.length - this.used);
      this.chunk.set(data.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
      if (this.used === this.chunk.length) this.send();
    }
    this.size += data.byteLength;
  }

  appendv(parts: readonly Uint8Array[]): void {
    for (const p of parts) this.append(p);
  }

  extend(): void {
    throw new Error('a streamed SSTable file cannot be extended');
  }

  /** The serving thread syncs the real file once the build is done; here, only what is buffered goes. */
  sync(): Promise<void> {
    if (this.used > 0) this.send();
    return Promise.resolve();
  }

  close(): void {}

  private send(): void {
    const buf = this.chunk.buffer as ArrayBuffer;
    send({ t: 'out', id: this.id, buf, length: this.used }, [buf]);
    this.chunk = newChunk();
    this.used = 0;
  }
}

const builds = new Map<number, SSTableWriter>();

function fail(id: number, e: unknown): void {
  builds.get(id)?.abandon();
  builds.delete(id);
  send({ t: 'error', id, code: isTabletopError(e) ? e.code : undefined, message: e instanceof Error ? e.message : String(e) });
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'chunk':
      if (m.buf.byteLength === CHUNK_BYTES && spareChunks.length < 8) spareChunks.push(m.buf);
      return;
    case 'open':
      try {
        builds.set(m.id, createSSTableWriter(new StreamedFile(m.id, m.path), m.options));
      } catch (e) {
        fail(m.id, e);
      }
      return;
    case 'rows': {
      const writer = builds.get(m.id);
      if (writer === undefined) return; // failed or abandoned: its error has been sent
      try {
        readEntryBatch(m.buf, m.length, (key, value) => writer.add(key, value));
        send({ t: 'ack', id: m.id, buf: m.buf }, [m.buf]);
      } catch (e) {
        fail(m.id, e);
      }
      return;
    }
    case 'finish': {
      const writer = builds.get(m.id);
      if (writer === undefined) return;
      builds.delete(m.id);
      writer.finish().then(
        (info) => send({ t: 'done', id: m.id, info }),
        (e: unknown) => fail(m.id, e),
      );
      return;
    }
    case 'abandon':
      builds.get(m.id)?.abandon();
      builds.delete(m.id);
      return;
  }
});
