/**
 * Worker threads that build SSTables (protocol.ts, worker.ts), so that the
 * thread serving requests spends a flush or a compaction only on deciding
 * what goes into the file, handing entries over and writing the bytes that
 * come back: the block encoding, LZ4 compression, checksums and the bloom
 * filter run beside it, on another core.
 *
 * One pool per process (`buildPool`), shared by every engine in it, grown
 * to the largest size asked for; workers start on the first build that
 * needs them and hold the process open only while they build. A worker
 * that dies (a crash, an out-of-memory kill of the thread) fails its builds
 * with WorkerLost; the next build starts a new worker. The engine redoes a
 * lost build on its own thread (compaction.ts), so nothing is lost.
 */
import { Worker } from 'node:worker_threads';
import type { ByteString } from '../../model/bytes.js';
import { TabletopError } from '../../model/errors.js';
import type { WritableFile } from '../fs/file-system.js';
import { createSSTableWriter, type SSTableWriter } from '../sstable/index.js';
import type { SSTableInfo } from '../sstable/properties.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';
import { EntryBatch, type FromWorker, type ToWorker } from './protocol.js';

/** Entries are handed over in batches of about this many bytes... */
const BATCH_BYTES = 256 * 1024;
/** ...with at most this many not yet added by the worker; past it, ready() asks the producer to wait. */
const MAX_BATCHES_IN_FLIGHT = 4;

/** An SSTableWriter whose producer waits for `ready()` when it is not undefined (the builder is behind). */
export interface PipelinedWriter extends SSTableWriter {
  ready(): Promise<void> | undefined;
  /** The worker building the file (1-based), or undefined when this thread builds it. */
  readonly worker: number | undefined;
}

/** A build's worker died before the file was finished. */
export class WorkerLost extends TabletopError {
  constructor(
    readonly worker: number,
    reason: string,
  ) {
    super('Unavailable', `background worker ${worker} died: ${reason}`);
  }
}

/** The SSTable writer of this thread, as a PipelinedWriter. */
export function localWriter(file: WritableFile, options: SSTableWriterOptions): PipelinedWriter {
  const writer = createSSTableWriter(file, options);
  return {
    get path() {
      return writer.path;
    },
    get entries() {
      return writer.entries;
    },
    get estimatedSize() {
      return writer.estimatedSize;
    },
    add: (key, value) => writer.add(key, value),
    finish: () => writer.finish(),
    abandon: () => writer.abandon(),
    ready: () => undefined,
    worker: undefined,
  };
}

let shared: BuildPool | undefined;

/** The process's pool, with at least `threads` workers allowed. */
export function buildPool(threads: number): BuildPool {
  shared ??= new BuildPool();
  shared.grow(threads);
  return shared;
}

class Slot {
  worker: Worker | undefined;
  /** Why the worker ended, when its error event said (the exit event follows it). */
  lastError: string | undefined;
  readonly builds = new Map<number, RemoteWriter>();
  constructor(readonly index: number) {}
}

export class BuildPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  /** Workers started since the pool was made (restarts after a death included). */
  started = 0;
  /** Builds the workers finished. */
  completedBuilds = 0;

  grow(threads: number): void {
    while (this.slots.length < threads) this.slots.push(new Slot(this.slots.length + 1));
  }

  get threads(): number {
    return this.slots.length;
  }

  /** Builds in progress on all workers. */
  get activeBuilds(): number {
    let n = 0;
    for (const s of this.slots) n += s.builds.size;
    return n;
  }

  /** A writer whose file is built by the least busy worker. */
  createWriter(file: WritableFile, options: SSTableWriterOptions): PipelinedWriter {
    let slot = this.slots[0];
    if (slot === undefined) throw new Error('the build pool has no threads');
    for (const s of this.slots) if (s.builds.size < slot.builds.size) slot = s;
    const worker = this.workerOf(slot);
    const writer = new RemoteWriter(this.nextId++, slot, worker, file, options, () => this.completedBuilds++);
    slot.builds.set(writer.id, writer);
    worker.ref();
    return writer;
  }

  /** Tests: every running worker ends at once, as a crash would. */
  crashWorkers(): void {
    for (const s of this.slots) s.worker?.postMessage({ t: 'crash' } satisfies ToWorker);
  }

  private workerOf(slot: Slot): Worker {
    if (slot.worker !== undefined) return slot.worker;
    const worker = startWorker();
    this.started++;
    slot.worker = worker;
    slot.lastError = undefined;
    worker.on('message', (m: FromWorker) => slot.builds.get(m.id)?.receive(m));
    worker.on('error', (e) => (slot.lastError = e.message));
    worker.on('exit', (code) => {
      if (slot.worker === worker) slot.worker = undefined;
      const lost = new WorkerLost(slot.index, slot.lastError ?? `its thread exited with code ${code}`);
      for (const b of [...slot.builds.values()]) b.lose(lost);
    });
    return worker;
  }
}

/**
 * The worker's code: worker.js beside this module when it runs compiled; from
 * the TypeScript sources (tests), worker.ts through tsx's loader, which the
 * worker registers for itself (a worker does not inherit the loader of the
 * thread that starts it).
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./worker.js', import.meta.url));
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, {
    eval: true,
  });
}

type State = 'open' | 'finishing' | 'finished' | 'abandoned' | 'failed';

class RemoteWriter implements PipelinedWriter {
  private readonly batch = new EntryBatch(BATCH_BYTES);
  private state: State = 'open';
  private count = 0;
  private inFlight = 0;
  /** Bytes handed over and not yet come back as file bytes (for estimatedSize). */
  private pendingBytes = 0;
  private failure: Error | undefined;
  private waiter: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  private finishing: { resolve: (info: SSTableInfo) => void; reject: (e: unknown) => void } | undefined;

  constructor(
    readonly id: number,
    private readonly slot: Slot,
    private readonly thread: Worker,
    private readonly file: WritableFile,
    options: SSTableWriterOptions,
    private readonly onDone: () => void,
  ) {
    this.post({ t: 'open', id, path: file.path, options });
  }

  get worker(): number {
    return this.slot.index;
  }

  get path(): string {
    return this.file.path;
  }

  get entries(): number {
    return this.count;
  }

  get estimatedSize(): number {
    return this.file.size + this.pendingBytes + this.batch.pos;
  }

  add(key: ByteString, value: Uint8Array): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') throw new TabletopError('Internal', `sstable ${this.path}: add after the writer was ${this.state}`);
    this.batch.add(key, value);
    this.count++;
    if (this.batch.full) this.sendBatch();
  }

  ready(): Promise<void> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.inFlight < MAX_BATCHES_IN_FLIGHT) return undefined;
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  async finish(): Promise<SSTableInfo> {
    if (this.failure !== undefined) throw this.failure;
    if (this.state !== 'open') throw new TabletopError('Internal', `sstable ${this.path}: finish after the writer was ${this.state}`);
    this.state = 'finishing';
    if (this.batch.count > 0) this.sendBatch();
    const info = await new Promise<SSTableInfo>((resolve, reject) => {
      this.finishing = { resolve, reject };
      this.post({ t: 'finish', id: this.id });
    });
    // Every 'out' message came before 'done': the file holds all its bytes.
    await this.file.sync();
    this.file.close();
    this.state = 'finished';
    return info;
  }

  abandon(): void {
    if (this.state === 'finished' || this.state === 'abandoned') return;
    if (this.state !== 'failed') this.post({ t: 'abandon', id: this.id });
    this.state = 'abandoned';
    this.detach();
    this.file.close();
  }

  /** A message of the worker about this build. */
  receive(m: FromWorker): void {
    switch (m.t) {
      case 'out':
        if (this.state === 'abandoned' || this.state === 'failed') return;
        try {
          this.file.append(new Uint8Array(m.buf, 0, m.length));
          this.pendingBytes = Math.max(0, this.pendingBytes - m.length);
        } catch (e) {
          // The file could not take the bytes (disk full, I/O error): the build stops here.
          this.post({ t: 'abandon', id: this.id });
          this.fail(e as Error);
        }
        return;
      case 'ack': {
        this.inFlight--;
        const w = this.waiter;
        this.waiter = undefined;
        w?.resolve();
        return;
      }
      case 'done': {
        this.detach();
        this.onDone();
        const f = this.finishing;
        this.finishing = undefined;
        f?.resolve(m.info);
        return;
      }
      case 'error':
        this.fail(new TabletopError(m.code ?? 'Internal', m.message));
        return;
    }
  }

  /** The worker died. */
  lose(e: WorkerLost): void {
    if (this.state === 'finished' || this.state === 'abandoned') return;
    this.fail(e);
  }

  private fail(e: Error): void {
    if (this.failure !== undefined) return;
    this.failure = e;
    this.state = 'failed';
    this.detach();
    const w = this.waiter;
    const f = this.finishing;
    this.waiter = undefined;
    this.finishing = undefined;
    w?.reject(e);
    f?.reject(e);
  }

  private sendBatch(): void {
    const n = this.batch.pos;
    const { buf, length } = this.batch.take();
    this.inFlight++;
    this.pendingBytes += n;
    this.post({ t: 'rows', id: this.id, buf, length }, [buf]);
  }

  private post(m: ToWorker, transfer?: ArrayBuffer[]): void {
    this.thread.postMessage(m, transfer);
  }

  private detach(): void {
    this.slot.builds.delete(this.id);
    if (this.slot.builds.size === 0) this.thread.unref();
  }
}
