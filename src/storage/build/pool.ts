/**
 * Worker threads that build SSTables (protocol.ts, worker.ts), so that the
 * thread serving requests spends a flush or a compaction only on deciding
 * what goes into the file and handing entries over: the block encoding, LZ4
 * compression, checksums, the bloom filter and (for a file of the operating
 * system's) the file's writes run beside it, on another core. (Writing the
 * bytes that came back was the serving thread's largest share of a
 * compaction with one worker: ~60 ms of every 0.5 s, in
 * bench/compaction-latency-server.ts --threads 1.) A compaction's merge
 * (reading the inputs, resolving versions, applying drops and GC rules)
 * stays on the serving thread, in slices: a version that ran whole compactions on a
 * worker (inputs read through the serving thread into shared memory) peaked
 * 25-50 MiB higher in test/durability/bounded-memory.test.ts (262-285 MiB
 * against 237, a budget of ~265), a worker that allocates little collecting
 * its garbage late.
 *
 * One pool per process (`buildPool`), shared by every engine in it, grown
 * to the largest size asked for; workers start on the first build that
 * needs them (a server starts them at once: `warm`) and hold the process
 * open only while they build. A worker
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
    finish: (pause) => writer.finish(pause),
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
  readonly builds = new Map<number, Build>();
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
    const slot = this.leastBusy();
    const writer = new RemoteWriter(this.nextId++, slot, this.workerOf(slot), file, () => this.completedBuilds++);
    const fd = file.advanced === undefined ? undefined : file.descriptor;
    const direct = fd === undefined ? undefined : { fd, position: file.size };
    this.start(slot, writer, { t: 'open', id: writer.id, path: file.path, options, direct });
    return writer;
  }

  /** Starts every worker now rather than at its first build (a server: its memory counts from the start, and the first flush does not wait for a thread to start). */
  warm(): void {
    for (const s of this.slots) {
      const worker = this.workerOf(s);
      if (s.builds.size === 0) worker.unref();
    }
  }

  /** Tests: every running worker is stopped at once, wherever it is (a thread killed mid-build). */
  crashWorkers(): void {
    for (const s of this.slots) void s.worker?.terminate();
  }

  private leastBusy(): Slot {
    let slot = this.slots[0];
    if (slot === undefined) throw new Error('the build pool has no threads');
    for (const s of this.slots) if (s.builds.size < slot.builds.size) slot = s;
    return slot;
  }

  private start(slot: Slot, build: Build, first: ToWorker): void {
    slot.builds.set(build.id, build);
    build.thread.ref();
    build.thread.postMessage(first);
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

/** The build's worker holds a file's descriptor (a direct build) that is to be closed once the worker stops. */
type Holding = 'no' | 'writing' | 'close when stopped';

/** One file being built on a worker, seen from this thread: the bytes that come back, the end, a failure. */
abstract class Build {
  protected state: State = 'open';
  protected failure: Error | undefined;
  /** Whether the worker writes the file itself, through its descriptor (see protocol.ts). */
  protected holding: Holding;
  private finishing: { resolve: (info: SSTableInfo) => void; reject: (e: unknown) => void } | undefined;

  constructor(
    readonly id: number,
    private readonly slot: Slot,
    readonly thread: Worker,
    protected readonly file: WritableFile,
    private readonly onDone: () => void,
  ) {
    this.holding = file.advanced !== undefined && file.descriptor !== undefined ? 'writing' : 'no';
  }

  get worker(): number {
    return this.slot.index;
  }

  /** A message of the worker about this build. */
  receive(m: FromWorker): void {
    switch (m.t) {
      case 'out':
        if (this.state === 'abandoned' || this.state === 'failed') return;
        try {
          this.file.append(new Uint8Array(m.buf, 0, m.length));
          this.wrote(m.length);
          this.thread.postMessage({ t: 'chunk', id: 0, buf: m.buf } satisfies ToWorker, [m.buf]);
        } catch (e) {
          // The file could not take the bytes (disk full, I/O error): the build stops here.
          this.post({ t: 'abandon', id: this.id });
          this.fail(e as Error);
        }
        return;
      case 'wrote':
        this.file.advanced?.(m.length);
        this.wrote(m.length);
        return;
      case 'done': {
        this.stopped();
        this.detach();
        this.onDone();
        const f = this.finishing;
        this.finishing = undefined;
        f?.resolve(m.info);
        return;
      }
      case 'error':
        // The worker has stopped writing the build's file.
        this.stopped();
        this.fail(new TabletopError(m.code ?? 'Internal', m.message, m.errno === undefined ? undefined : { cause: { errno: m.errno } }));
        return;
      case 'abandoned':
        this.stopped();
        this.detach();
        return;
      default:
        this.other(m);
    }
  }

  /** The worker died. */
  lose(e: WorkerLost): void {
    this.stopped();
    if (this.state === 'finished' || this.state === 'abandoned') {
      this.detach();
      return;
    }
    this.fail(e);
  }

  /** The worker writes no more of the file: a close that waited for it happens now. */
  private stopped(): void {
    const close = this.holding === 'close when stopped';
    this.holding = 'no';
    if (close) this.file.close();
  }

  /**
   * Closes the file now, or once the worker has stopped writing it (its 'abandoned', 'error' or death): until then a
   * file opened under the same descriptor would take the worker's bytes.
   */
  protected closeFile(): void {
    if (this.holding === 'writing') this.holding = 'close when stopped';
    else this.file.close();
  }

  /** Resolves with the file's info once the worker is done and the file is synced and closed. */
  protected async finished(): Promise<SSTableInfo> {
    const info = await new Promise<SSTableInfo>((resolve, reject) => {
      if (this.failure !== undefined) reject(this.failure);
      else this.finishing = { resolve, reject };
    });
    // Every 'out' message came before 'done': the file holds all its bytes.
    await this.file.sync();
    this.file.close();
    this.state = 'finished';
    return info;
  }

  protected wrote(_bytes: number): void {}

  protected other(_m: FromWorker): void {}

  protected fail(e: Error): void {
    if (this.failure !== undefined) return;
    this.failure = e;
    this.state = 'failed';
    this.detach();
    const f = this.finishing;
    this.finishing = undefined;
    f?.reject(e);
    this.failed(e);
  }

  protected failed(_e: Error): void {}

  protected post(m: ToWorker, transfer?: ArrayBuffer[]): void {
    this.thread.postMessage(m, transfer);
  }

  protected detach(): void {
    // A build whose worker still writes its file stays known to the slot: its 'abandoned' (or the worker's death) closes the file.
    if (this.holding !== 'no') return;
    this.slot.builds.delete(this.id);
    if (this.slot.builds.size === 0) this.thread.unref();
  }
}

class RemoteWriter extends Build implements PipelinedWriter {
  private readonly batch = new EntryBatch(BATCH_BYTES);
  private count = 0;
  private inFlight = 0;
  /** Bytes handed over and not yet come back as file bytes (for estimatedSize). */
  private pendingBytes = 0;
  private waiter: { resolve: () => void; reject: (e: unknown) => void } | undefined;

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

  finish(): Promise<SSTableInfo> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.state !== 'open')
      return Promise.reject(new TabletopError('Internal', `sstable ${this.path}: finish after the writer was ${this.state}`));
    this.state = 'finishing';
    if (this.batch.count > 0) this.sendBatch();
    this.post({ t: 'finish', id: this.id });
    return this.finished();
  }

  abandon(): void {
    if (this.state === 'finished' || this.state === 'abandoned') return;
    if (this.state !== 'failed') this.post({ t: 'abandon', id: this.id });
    this.state = 'abandoned';
    this.closeFile();
    this.detach();
  }

  protected override wrote(bytes: number): void {
    this.pendingBytes = Math.max(0, this.pendingBytes - bytes);
  }

  protected override other(m: FromWorker): void {
    if (m.t !== 'ack') return;
    this.batch.reuse(m.buf);
    this.inFlight--;
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve();
  }

  protected override failed(e: Error): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(e);
  }

  private sendBatch(): void {
    const n = this.batch.pos;
    const { buf, length } = this.batch.take();
    this.inFlight++;
    this.pendingBytes += n;
    this.post({ t: 'rows', id: this.id, buf, length }, [buf]);
  }
}
