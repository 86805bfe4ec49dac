/**
 * A build worker's thread (see protocol.ts): runs SSTable writers over files
 * that stream their bytes back to the serving thread. It holds no state but
 * the builds in progress, so a worker that dies loses only those.
 */
import { parentPort } from 'node:worker_threads';
import { isTabletopError, TabletopError } from '../../model/errors.js';
import type { FileSystem, RandomAccessFile, WritableFile } from '../fs/file-system.js';
import { MergeStopped, mergeRows, rowGcOf, type MergeInput } from '../lsm/merge-rows.js';
import { DropSet } from '../lsm/store-drops.js';
import { createSSTableWriter, openSSTable, type SSTableReader, type SSTableWriter } from '../sstable/index.js';
import type { SSTableInfo } from '../sstable/properties.js';
import { type CompactJob, type FromWorker, readEntryBatch, ReadReply, type ToWorker } from './protocol.js';

/** Output is sent back in chunks of about this size. */
const CHUNK_BYTES = 1024 * 1024;

const port = parentPort;
if (port === null) throw new Error('storage/build/worker.ts runs only as a worker thread');

function send(message: FromWorker, transfer?: ArrayBuffer[]): void {
  port!.postMessage(message, transfer);
}

/** A WritableFile whose bytes go back to the serving thread, which writes and syncs the real file. */
class StreamedFile implements WritableFile {
  private chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
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
    this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.used = 0;
  }
}

const builds = new Map<number, SSTableWriter>();

function fail(id: number, e: unknown): void {
  builds.get(id)?.abandon();
  builds.delete(id);
  const code = e instanceof MergeStopped ? 'stopped' : isTabletopError(e) ? e.code : undefined;
  send({ t: 'error', id, code, message: e instanceof Error ? e.message : String(e) });
}

/** Input files are read ahead in windows of this size: one round trip to the serving thread per window. */
const READ_AHEAD_BYTES = 1024 * 1024;

/** An input file of a compaction, read through the serving thread (see protocol.ts). */
class RelayedFile implements RandomAccessFile {
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly id: number,
    readonly path: string,
    readonly size: number,
  ) {}

  read(offset: number, length: number): Buffer {
    const end = Math.min(offset + length, this.size);
    if (offset >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(offset - this.windowStart, end - this.windowStart);
    }
    const want = Math.max(0, Math.min(Math.max(length, READ_AHEAD_BYTES), this.size - offset));
    const sab = new SharedArrayBuffer(ReadReply.HEADER_BYTES + want);
    const state = new Int32Array(sab, 0, 2);
    send({ t: 'read', id: this.id, path: this.path, offset, length: want, sab });
    Atomics.wait(state, 0, ReadReply.PENDING);
    const bytes = state[1]!;
    const data = new Uint8Array(sab, ReadReply.HEADER_BYTES, bytes);
    switch (Atomics.load(state, 0)) {
      case ReadReply.STOP:
        throw new MergeStopped();
      case ReadReply.ERROR:
        throw new TabletopError('Unavailable', Buffer.from(data).toString('utf8'));
    }
    // A copy in ordinary memory: the shared buffer is this read's only.
    this.window = Buffer.from(data);
    this.windowStart = offset;
    return this.window.subarray(0, Math.min(length, bytes));
  }

  close(): void {}
}

/** The only file operation a compaction's worker makes: opening its inputs for reading. */
function relayedFileSystem(id: number, sizes: ReadonlyMap<string, number>): FileSystem {
  const refuse = (what: string) => (): never => {
    throw new Error(`a build worker does not ${what}`);
  };
  return {
    openRead(path) {
      const size = sizes.get(path);
      if (size === undefined) throw new Error(`a build worker reads only its compaction's inputs, not ${path}`);
      return new RelayedFile(id, path, size);
    },
    create: refuse('create files'),
    reuse: refuse('write files'),
    readFile: refuse('read whole files'),
    rename: refuse('rename files'),
    remove: refuse('remove files'),
    list: refuse('list directories'),
    mkdirp: refuse('make directories'),
    exists: refuse('look files up'),
    size: refuse('look files up'),
    syncDir: refuse('sync directories'),
  };
}

async function compact(m: Extract<ToWorker, { t: 'compact' }>): Promise<SSTableInfo | undefined> {
  const writer = createSSTableWriter(new StreamedFile(m.id, m.path), m.options);
  builds.set(m.id, writer);
  const job: CompactJob = m;
  const fs = relayedFileSystem(m.id, new Map(job.inputs.map((f) => [f.path, f.size])));
  const bounds = { lower: job.lower, ...(job.upper === undefined ? {} : { upper: job.upper }), fillCache: false };
  const readers: SSTableReader[] = [];
  const inputs: MergeInput[] = [];
  try {
    for (const f of job.inputs) {
      const reader = openSSTable(fs, f.path, { id: f.number });
      readers.push(reader);
      const iter = reader.newIterator(bounds);
      iter.seekGE(job.lower);
      inputs.push({ iter, where: f.where });
    }
    const options = {
      major: job.major,
      dropsSeq: job.dropsSeq,
      drops: new DropSet(job.drops.families, job.drops.ranges),
      gc: job.gc === undefined ? undefined : rowGcOf(job.gc.rules, job.gc.nowMicros),
    };
    await mergeRows(inputs, options, { add: (key, value) => writer.add(key, value), pause: () => undefined, stopped: () => false });
  } finally {
    for (const { iter } of inputs) iter.close();
    for (const r of readers) r.close();
  }
  builds.delete(m.id);
  if (writer.entries === 0) {
    writer.abandon();
    return undefined;
  }
  return writer.finish();
}

/** The answer for a compaction whose output would be empty (nothing is written). */
const EMPTY: SSTableInfo = {
  entries: 0,
  smallestKey: undefined,
  largestKey: undefined,
  rawKeyBytes: 0,
  rawValueBytes: 0,
  maxEntryBytes: 0,
  dataBlocks: 0,
  formatVersion: 0,
  createdAtMillis: 0,
  creator: '',
  compression: 'none',
  size: 0,
};

port.on('message', (m: ToWorker) => {
  switch (m.t) {
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
        send({ t: 'ack', id: m.id });
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
    case 'compact':
      compact(m).then(
        (info) => send({ t: 'done', id: m.id, info: info ?? EMPTY }),
        (e: unknown) => fail(m.id, e),
      );
      return;
    case 'abandon':
      builds.get(m.id)?.abandon();
      builds.delete(m.id);
      return;
  }
});
