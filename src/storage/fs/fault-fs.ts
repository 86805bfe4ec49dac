import { TabletopError } from '../../model/errors.js';
import type { FileSystem, RandomAccessFile, WritableFile } from './file-system.js';

export type FsOp = 'create' | 'reuse' | 'append' | 'sync' | 'openRead' | 'read' | 'readFile' | 'rename' | 'remove' | 'syncDir' | 'mkdirp';

/**
 * Decides the fate of one operation: undefined lets it through, 'error'
 * fails it with an I/O error (EIO), 'short' (append only) writes a prefix of
 * the data and then fails, as a full disk does (ENOSPC), and an errno
 * ('ENOSPC', 'EMFILE', ...) fails it with that error.
 */
export type FaultPolicy = (op: FsOp, path: string) => 'error' | 'short' | `E${string}` | undefined;

/** An injected I/O failure; the engine must treat it like the same errno from a disk. */
export class InjectedFault extends TabletopError {
  constructor(
    op: FsOp,
    path: string,
    /** The system's error code it stands for (storage/fs/errno.ts reads it). */
    readonly errno = 'EIO',
  ) {
    super('Internal', `injected I/O error: ${op} ${path} (${errno})`);
  }
}

/** The fault an operation's fate stands for ('short' is a full disk's partial write). */
function fault(op: FsOp, path: string, fate: 'error' | 'short' | `E${string}`): InjectedFault {
  return new InjectedFault(op, path, fate === 'error' ? 'EIO' : fate === 'short' ? 'ENOSPC' : fate);
}

/** Policy that fails the n-th operation (1-based) matching `ops`, and only that one. */
export function failNth(n: number, ops?: readonly FsOp[]): FaultPolicy & { count(): number } {
  let seen = 0;
  const policy = (op: FsOp): 'error' | undefined => {
    if (ops !== undefined && !ops.includes(op)) return undefined;
    seen++;
    return seen === n ? 'error' : undefined;
  };
  return Object.assign(policy, { count: () => seen });
}

/** Wraps a filesystem and injects faults as the policy says; `freeBytes` stands for the disk's free space (statfs). */
export function createFaultFileSystem(
  inner: FileSystem,
  policy: FaultPolicy,
  disk: { readonly freeBytes?: () => number } = {},
): FileSystem {
  const free = disk.freeBytes ?? (inner.freeBytes === undefined ? undefined : (dir: string) => inner.freeBytes!(dir));
  const check = (op: FsOp, path: string): void => {
    const fate = policy(op, path);
    if (fate !== undefined) throw fault(op, path, fate);
  };
  return {
    create(path) {
      check('create', path);
      return new FaultWritableFile(inner.create(path), policy);
    },
    reuse(path) {
      check('reuse', path);
      return new FaultWritableFile(inner.reuse(path), policy);
    },
    openRead(path) {
      check('openRead', path);
      return new FaultRandomAccessFile(inner.openRead(path), policy);
    },
    readFile(path) {
      check('readFile', path);
      return inner.readFile(path);
    },
    rename(from, to) {
      check('rename', to);
      inner.rename(from, to);
    },
    remove(path) {
      check('remove', path);
      inner.remove(path);
    },
    list: (dir) => inner.list(dir),
    mkdirp(dir) {
      check('mkdirp', dir);
      inner.mkdirp(dir);
    },
    exists: (path) => inner.exists(path),
    size: (path) => inner.size(path),
    ...(free === undefined ? {} : { freeBytes: free }),
    async syncDir(dir) {
      check('syncDir', dir);
      await inner.syncDir(dir);
    },
  };
}

class FaultWritableFile implements WritableFile {
  constructor(
    private readonly inner: WritableFile,
    private readonly policy: FaultPolicy,
  ) {}
  get path(): string {
    return this.inner.path;
  }
  get size(): number {
    return this.inner.size;
  }
  append(data: Uint8Array): void {
    const fate = this.policy('append', this.path);
    if (fate === 'short') {
      this.inner.append(data.subarray(0, data.byteLength >> 1));
      throw fault('append', this.path, fate);
    }
    if (fate !== undefined) throw fault('append', this.path, fate);
    this.inner.append(data);
  }
  appendv(parts: readonly Uint8Array[]): void {
    const fate = this.policy('append', this.path);
    if (fate === 'short') {
      // Torn: the first half of the bytes, wherever that falls among the parts.
      let half = parts.reduce((n, p) => n + p.byteLength, 0) >> 1;
      for (const p of parts) {
        if (half === 0) break;
        const n = Math.min(half, p.byteLength);
        this.inner.append(p.subarray(0, n));
        half -= n;
      }
      throw fault('append', this.path, fate);
    }
    if (fate !== undefined) throw fault('append', this.path, fate);
    this.inner.appendv(parts);
  }
  get length(): number {
    return this.inner.length;
  }
  extend(length: number): void {
    // Zeros are writes too: they fail (or tear) as appends do.
    const fate = this.policy('append', this.path);
    if (fate === 'short') {
      this.inner.extend(this.inner.length + ((length - this.inner.length) >> 1));
      throw fault('append', this.path, fate);
    }
    if (fate !== undefined) throw fault('append', this.path, fate);
    this.inner.extend(length);
  }
  async sync(): Promise<void> {
    const fate = this.policy('sync', this.path);
    if (fate !== undefined) throw fault('sync', this.path, fate);
    await this.inner.sync();
  }
  close(): void {
    this.inner.close();
  }
}

class FaultRandomAccessFile implements RandomAccessFile {
  constructor(
    private readonly inner: RandomAccessFile,
    private readonly policy: FaultPolicy,
  ) {}
  get path(): string {
    return this.inner.path;
  }
  get size(): number {
    return this.inner.size;
  }
  read(offset: number, length: number, into?: Buffer): Buffer {
    const fate = this.policy('read', this.path);
    if (fate !== undefined) throw fault('read', this.path, fate);
    return this.inner.read(offset, length, into);
  }
  close(): void {
    this.inner.close();
  }
}
