/**
 * A build worker's thread (see protocol.ts): runs SSTable writers over files
 * it writes itself (through the descriptor the serving thread opened) or
 * that stream their bytes back to the serving thread. It holds no state but
 * the builds in progress, so a worker that dies loses only those.
 */
import * as fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { isTabletopError, TabletopError } from '../../model/errors.js';
import { errnoOf } from '../fs/errno.js';
import type { WritableFile } from '../fs/file-system.js';
import { createSSTableWriter, type SSTableWriter } from '../sstable/index.js';
import { type FromWorker, readEntryBatch, type ToWorker } from './protocol.js';

/**
 * A direct build writes its file in pieces of this size: few system calls, and each a message of a few bytes to the
 * serving thread.
 */
const DIRECT_CHUNK_BYTES = 1024 * 1024;

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

/** Output chunks the serving thread has handed back, filled again before new ones are allocated. */
const spareChunks: ArrayBuffer[] = [];

function newChunk(): Buffer {
  const spare = spareChunks.pop();
  return spare === undefined ? Buffer.allocUnsafeSlow(CHUNK_BYTES) : Buffer.from(spare);
}

/** A WritableFile whose bytes go back to the serving thread, which writes and syncs the real file. */
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

/**
 * A WritableFile over a descriptor the serving thread opened: the bytes are written here, in pieces, and each piece
 * reported to the serving thread, which syncs and closes the file. Never closes the descriptor.
 */
class DirectFile implements WritableFile {
  private readonly chunk = Buffer.allocUnsafeSlow(DIRECT_CHUNK_BYTES);
  private used = 0;
  size = 0;

  constructor(
    readonly id: number,
    readonly path: string,
    private readonly fd: number,
    private position: number,
  ) {}

  get length(): number {
    return this.size;
  }

  append(data: Uint8Array): void {
    if (this.used + data.byteLength > this.chunk.length) this.writeChunk();
    if (data.byteLength >= this.chunk.length) this.write(data);
    else {
      this.chunk.set(data, this.used);
      this.used += data.byteLength;
    }
    this.size += data.byteLength;
  }

  appendv(parts: readonly Uint8Array[]): void {
    for (const p of parts) this.append(p);
  }

  extend(): void {
    throw new Error('a directly written SSTable file cannot be extended');
  }

  /** The serving thread syncs the file once the build is done; here, only what is buffered is written. */
  sync(): Promise<void> {
    this.writeChunk();
    return Promise.resolve();
  }

  /** The bytes buffered here are dropped; the descriptor is the serving thread's to close. */
  close(): void {
    this.used = 0;
  }

  private writeChunk(): void {
    if (this.used === 0) return;
    const n = this.used;
    this.used = 0;
    this.write(this.chunk.subarray(0, n));
  }

  private write(data: Uint8Array): void {
    let off = 0;
    try {
      while (off < data.byteLength) off += fs.writeSync(this.fd, data, off, data.byteLength - off, this.position + off);
    } catch (e) {
      throw new TabletopError('Internal', `write ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    this.position += data.byteLength;
    send({ t: 'wrote', id: this.id, length: data.byteLength });
  }
}

const builds = new Map<number, SSTableWriter>();

function fail(id: number, e: unknown): void {
  builds.get(id)?.abandon();
  builds.delete(id);
  send({
    t: 'error',
    id,
    code: isTabletopError(e) ? e.code : undefined,
    message: e instanceof Error ? e.message : String(e),
    errno: errnoOf(e),
  });
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'chunk':
      if (m.buf.byteLength === CHUNK_BYTES && spareChunks.length < 8) spareChunks.push(m.buf);
      return;
    case 'open':
      try {
        const file = m.direct === undefined ? new StreamedFile(m.id, m.path) : new DirectFile(m.id, m.path, m.direct.fd, m.direct.position);
        builds.set(m.id, createSSTableWriter(file, m.options));
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
      send({ t: 'abandoned', id: m.id });
      return;
  }
});
