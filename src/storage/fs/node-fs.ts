import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { TabletopError } from '../../model/errors.js';
import type { FileSystem, RandomAccessFile, WritableFile } from './file-system.js';

/** The real disk, through Node's fs. Paths are resolved against `root`. */
export function createNodeFileSystem(root: string): FileSystem {
  const abs = (p: string): string => nodePath.resolve(root, p);
  return {
    create(path) {
      return new NodeWritableFile(path, fs.openSync(abs(path), 'w'), 0);
    },
    reuse(path) {
      try {
        const fd = fs.openSync(abs(path), 'r+');
        return new NodeWritableFile(path, fd, fs.fstatSync(fd).size);
      } catch (e) {
        throw ioError('open', path, e);
      }
    },
    openRead(path) {
      let fd: number;
      try {
        fd = fs.openSync(abs(path), 'r');
      } catch (e) {
        throw ioError('open', path, e);
      }
      return new NodeRandomAccessFile(path, fd, fs.fstatSync(fd).size);
    },
    readFile(path) {
      try {
        return fs.readFileSync(abs(path));
      } catch (e) {
        throw ioError('read', path, e);
      }
    },
    rename(from, to) {
      fs.renameSync(abs(from), abs(to));
    },
    remove(path) {
      fs.rmSync(abs(path), { force: true });
    },
    removeInBackground(path) {
      return fs.promises.rm(abs(path), { force: true });
    },
    list(dir) {
      try {
        return fs.readdirSync(abs(dir)).sort();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
    mkdirp(dir) {
      fs.mkdirSync(abs(dir), { recursive: true });
    },
    exists(path) {
      return fs.existsSync(abs(path));
    },
    size(path) {
      return fs.statSync(abs(path)).size;
    },
    freeBytes(dir) {
      const s = fs.statfsSync(abs(dir));
      return s.bavail * s.bsize;
    },
    async syncDir(dir) {
      const h = await fs.promises.open(abs(dir), 'r');
      try {
        await h.sync();
      } finally {
        await h.close();
      }
    },
  };
}

function ioError(op: string, path: string, e: unknown): TabletopError {
  const code = (e as NodeJS.ErrnoException).code;
  return new TabletopError(code === 'ENOENT' ? 'NotFound' : 'Internal', `${op} ${path}: ${(e as Error).message}`, { cause: e });
}

/**
 * A sync of at most this many bytes written since the last one runs on the
 * calling thread (it blocks the event loop for the device's flush, ~0.45 ms
 * here, during which requests queue and then share the next sync); a larger
 * one runs on libuv's pool, so the event loop keeps decoding the next
 * requests while a bulk load's megabytes go to disk. Measured on this
 * project's VM (a 1 KiB write + sync in a loop): 62–76 µs of CPU per sync on
 * the calling thread, 118–123 µs through the pool (waking a pool thread and
 * being woken back is the difference); through the server, single-row
 * writes cost 15 µs less CPU each and the load generator's MutateRow,
 * CheckAndMutateRow and ReadModifyWriteRow 6–10 µs less, at the same or
 * higher throughput. 64 KiB syncs take ~0.54 ms, 256 KiB ~1 ms.
 *
 * A disk that is slow for a while (behind a compaction's writes, say) would
 * stall every request for as long as each sync takes, so syncs go to the
 * pool while the recent average sync (a moving average over about the last
 * ten, wherever they ran) takes over SLOW_SYNC_MILLIS. Single slow syncs are
 * common here (one or two a second over 5 ms under a write load) and do not
 * move it: reacting to each of them sent most syncs back to the pool.
 */
const SYNC_ON_LOOP_MAX_BYTES = 64 * 1024;
const SLOW_SYNC_MILLIS = 5;
const SYNC_AVERAGE_WEIGHT = 0.1;

/** Where syncs run (see above). */
export class SyncPlacement {
  /** Moving average of recent sync durations, in milliseconds. */
  private averageMillis = 0;

  /** Whether a sync of `bytes` written since the last one runs on the calling thread. */
  onLoop(bytes: number): boolean {
    return bytes <= SYNC_ON_LOOP_MAX_BYTES && this.averageMillis <= SLOW_SYNC_MILLIS;
  }

  /**
   * A sync of `bytes` took `millis` (on the loop, or from the call to its completion on the pool).
   * Only syncs small enough for the loop count: a large one (an SSTable's) is slow for its size.
   */
  took(millis: number, bytes: number): void {
    if (bytes > SYNC_ON_LOOP_MAX_BYTES) return;
    this.averageMillis += SYNC_AVERAGE_WEIGHT * (millis - this.averageMillis);
  }
}

/** One disk, one placement for all its files. */
const placement = new SyncPlacement();

/** Zeros for NodeWritableFile.extend, written in pieces of this size. */
const ZEROS = Buffer.alloc(256 * 1024);

class NodeWritableFile implements WritableFile {
  size = 0;
  private syncedSize = 0;
  private closed = false;
  constructor(
    readonly path: string,
    private readonly fd: number,
    public length: number,
  ) {}
  get descriptor(): number {
    return this.fd;
  }
  advanced(bytes: number): void {
    this.size += bytes;
    if (this.size > this.length) this.length = this.size;
  }
  append(data: Uint8Array): void {
    this.write(data, this.size);
    this.size += data.byteLength;
    if (this.size > this.length) this.length = this.size;
  }
  appendv(parts: readonly Uint8Array[]): void {
    let at = this.size;
    let rest = parts;
    while (rest.length > 0) {
      let n = fs.writevSync(this.fd, rest, at);
      at += n;
      // A short write: go on from the first byte not written.
      let i = 0;
      while (i < rest.length && n >= rest[i]!.byteLength) n -= rest[i++]!.byteLength;
      rest = i < rest.length && n > 0 ? [rest[i]!.subarray(n), ...rest.slice(i + 1)] : rest.slice(i);
    }
    this.size = at;
    if (this.size > this.length) this.length = this.size;
  }
  extend(length: number): void {
    if (length <= this.length) return;
    if (this.size !== this.length)
      throw new Error(`extend of ${this.path} while appending inside it (at ${this.size} of ${this.length} bytes)`);
    while (this.length < length) {
      const n = Math.min(ZEROS.length, length - this.length);
      this.write(ZEROS.subarray(0, n), this.length);
      this.length += n;
    }
  }
  private write(data: Uint8Array, at: number): void {
    let off = 0;
    while (off < data.byteLength) off += fs.writeSync(this.fd, data, off, data.byteLength - off, at + off);
  }
  sync(): Promise<void> {
    const started = performance.now();
    const bytes = this.size - this.syncedSize;
    if (placement.onLoop(bytes)) {
      try {
        fs.fdatasyncSync(this.fd);
      } catch (err) {
        return Promise.reject(ioError('sync', this.path, err));
      }
      placement.took(performance.now() - started, bytes);
      this.syncedSize = this.size;
      return Promise.resolve();
    }
    const size = this.size;
    return new Promise((resolve, reject) =>
      fs.fdatasync(this.fd, (err) => {
        placement.took(performance.now() - started, bytes);
        if (err) {
          reject(ioError('sync', this.path, err));
          return;
        }
        this.syncedSize = Math.max(this.syncedSize, size);
        resolve();
      }),
    );
  }
  close(): void {
    if (!this.closed) {
      this.closed = true;
      fs.closeSync(this.fd);
    }
  }
}

class NodeRandomAccessFile implements RandomAccessFile {
  private closed = false;
  constructor(
    readonly path: string,
    private readonly fd: number,
    readonly size: number,
  ) {}
  read(offset: number, length: number, into?: Buffer): Buffer {
    const n = Math.max(0, Math.min(length, this.size - offset));
    const buf = into !== undefined && into.length >= n ? into.subarray(0, n) : Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      let r: number;
      try {
        r = fs.readSync(this.fd, buf, got, n - got, offset + got);
      } catch (e) {
        throw ioError('read', this.path, e);
      }
      if (r === 0) break;
      got += r;
    }
    return got === n ? buf : buf.subarray(0, got);
  }
  close(): void {
    if (!this.closed) {
      this.closed = true;
      fs.closeSync(this.fd);
    }
  }
}
