import { TabletopError } from '../../model/errors.js';
import { dirname, type FileSystem, type RandomAccessFile, type WritableFile } from './file-system.js';

/**
 * An in-memory filesystem that models what a power loss keeps.
 *
 * Files are inodes; directories map names to inodes. Each inode remembers how
 * many bytes were synced; each directory remembers its entries as of its last
 * syncDir. `crash()` returns the filesystem a machine would find on reboot:
 * every directory reverts to its last synced entries, and every file keeps its
 * synced bytes plus, optionally, a random part of its unsynced tail (its last
 * bytes possibly garbled), as a torn final write would leave it. Within that
 * part, the disk may have written pages in any order: some 4 KiB pages of
 * it may still hold what they held before (old bytes, or zeros past the old
 * end of the file). A file being rewritten in place (`reuse`) keeps, past the
 * part of the unsynced writes that survives, its old synced bytes.
 *
 * Without calling crash() it is simply a fast in-memory filesystem.
 */
/** The unit in which a disk persists unsynced writes, in any order. */
const PAGE_BYTES = 4096;

export class MemoryFileSystem implements FileSystem {
  private readonly dirs = new Map<string, Dir>();

  constructor() {
    this.dirs.set('.', new Dir());
    this.dirs.set('/', new Dir());
  }

  create(path: string): WritableFile {
    const inode = new Inode();
    this.dir(dirname(path), true).entries.set(base(path), inode);
    return new MemWritableFile(path, inode);
  }

  reuse(path: string): WritableFile {
    return new MemWritableFile(path, this.inode(path));
  }

  openRead(path: string): RandomAccessFile {
    return new MemRandomAccessFile(path, this.inode(path));
  }

  readFile(path: string): Buffer {
    const ino = this.inode(path);
    return Buffer.from(ino.data.subarray(0, ino.length));
  }

  rename(from: string, to: string): void {
    const ino = this.inode(from);
    this.dir(dirname(from), false).entries.delete(base(from));
    this.dir(dirname(to), true).entries.set(base(to), ino);
  }

  remove(path: string): void {
    this.dirs.get(norm(dirname(path)))?.entries.delete(base(path));
  }

  list(dir: string): string[] {
    const d = this.dirs.get(norm(dir));
    return d === undefined ? [] : [...d.entries.keys()].sort();
  }

  mkdirp(dir: string): void {
    const parts = norm(dir).split('/');
    for (let i = 1; i <= parts.length; i++) {
      const p = parts.slice(0, i).join('/') || '/';
      if (!this.dirs.has(p)) this.dirs.set(p, new Dir());
    }
  }

  exists(path: string): boolean {
    return this.dirs.get(norm(dirname(path)))?.entries.has(base(path)) ?? this.dirs.has(norm(path));
  }

  size(path: string): number {
    return this.inode(path).length;
  }

  async syncDir(dir: string): Promise<void> {
    const d = this.dir(dir, false);
    d.synced = new Map(d.entries);
  }

  /**
   * The filesystem after a simulated power loss. `random` in [0,1) decides
   * how much of each unsynced tail survives (and whether it is garbled);
   * without it, every unsynced byte is lost.
   */
  crash(random?: () => number): MemoryFileSystem {
    const after = new MemoryFileSystem();
    const seen = new Map<Inode, Inode>();
    for (const [path, d] of this.dirs) {
      const nd = new Dir();
      for (const [name, ino] of d.synced) {
        let copy = seen.get(ino);
        if (copy === undefined) {
          copy = ino.afterCrash(random);
          seen.set(ino, copy);
        }
        nd.entries.set(name, copy);
      }
      nd.synced = new Map(nd.entries);
      after.dirs.set(path, nd);
    }
    return after;
  }

  private dir(path: string, create: boolean): Dir {
    const p = norm(path);
    let d = this.dirs.get(p);
    if (d === undefined) {
      if (!create) throw new TabletopError('NotFound', `no such directory: ${path}`);
      this.mkdirp(p);
      d = this.dirs.get(p)!;
    }
    return d;
  }

  private inode(path: string): Inode {
    const ino = this.dirs.get(norm(dirname(path)))?.entries.get(base(path));
    if (ino === undefined) throw new TabletopError('NotFound', `no such file: ${path}`);
    return ino;
  }
}

function norm(p: string): string {
  const s = p.replace(/\/+/g, '/').replace(/\/$/, '');
  return s === '' ? (p.startsWith('/') ? '/' : '.') : s;
}

function base(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

class Dir {
  entries = new Map<string, Inode>();
  synced = new Map<string, Inode>();
}

class Inode {
  data = Buffer.alloc(0);
  length = 0;
  /** The file's length as of its last sync. */
  syncedLength = 0;
  /** Where the writes since the last sync start (-1: none) and end; they are sequential. */
  private dirtyFrom = -1;
  private dirtyEnd = 0;
  /** The synced bytes those writes replaced, in order (the old content of [dirtyFrom, min(dirtyEnd, syncedLength))). */
  private replaced: Buffer[] = [];

  /** Writes at `at`: the end of the file, or (reuse) the end of the previous write. */
  write(at: number, bytes: Uint8Array): void {
    if (this.dirtyFrom < 0) this.dirtyFrom = this.dirtyEnd = at;
    else if (at !== this.dirtyEnd)
      throw new Error(`MemoryFileSystem: writes since a sync must be sequential (at ${at}, expected ${this.dirtyEnd})`);
    const end = at + bytes.byteLength;
    if (at < this.syncedLength) this.replaced.push(Buffer.from(this.data.subarray(at, Math.min(end, this.syncedLength))));
    this.place(at, bytes);
    this.dirtyEnd = end;
  }

  sync(): void {
    this.syncedLength = this.length;
    this.dirtyFrom = -1;
    this.replaced = [];
  }

  afterCrash(random?: () => number): Inode {
    const ino = new Inode();
    if (this.dirtyFrom < 0) {
      ino.place(0, this.data.subarray(0, this.syncedLength));
    } else {
      // Synced bytes before the writes; a random prefix of the writes; then what the disk held before them.
      const from = this.dirtyFrom;
      const written = this.dirtyEnd - from;
      const keep = random === undefined ? 0 : Math.floor(random() * (written + 1));
      ino.place(0, this.data.subarray(0, from + keep));
      const old = Buffer.concat(this.replaced);
      if (keep < old.length) ino.place(from + keep, old.subarray(keep));
      if (this.dirtyEnd < this.syncedLength) ino.place(this.dirtyEnd, this.data.subarray(this.dirtyEnd, this.syncedLength));
      if (random !== undefined && keep > 0 && random() < 0.3) {
        // A torn last sector: garble one of the last few surviving new bytes.
        const at = from + keep - 1 - Math.floor(random() * Math.min(8, keep));
        ino.data[at] = (ino.data[at] ?? 0) ^ 0xa5;
      }
      if (random !== undefined && keep > 0 && random() < 0.5) {
        // Pages written out of order: some pages of the surviving part never reached the disk.
        for (let page = from - (from % PAGE_BYTES); page < from + keep; page += PAGE_BYTES) {
          if (random() >= 0.25) continue;
          for (let i = Math.max(page, from); i < Math.min(page + PAGE_BYTES, from + keep); i++)
            ino.data[i] = i - from < old.length ? old[i - from]! : 0;
        }
      }
    }
    ino.syncedLength = ino.length;
    return ino;
  }

  private place(at: number, bytes: Uint8Array): void {
    const end = at + bytes.byteLength;
    if (end > this.data.length) {
      const grown = Buffer.alloc(Math.max(end, this.data.length * 2, 256));
      this.data.copy(grown, 0, 0, this.length);
      this.data = grown;
    }
    this.data.set(bytes, at);
    if (end > this.length) this.length = end;
  }
}

class MemWritableFile implements WritableFile {
  size = 0;
  constructor(
    readonly path: string,
    private readonly inode: Inode,
  ) {}
  append(data: Uint8Array): void {
    this.inode.write(this.size, data);
    this.size += data.byteLength;
  }
  appendv(parts: readonly Uint8Array[]): void {
    for (const p of parts) this.append(p);
  }
  get length(): number {
    return this.inode.length;
  }
  extend(length: number): void {
    if (length <= this.inode.length) return;
    if (this.size !== this.inode.length) throw new Error(`MemoryFileSystem: extend of ${this.path} while appending inside it`);
    this.inode.write(this.inode.length, Buffer.alloc(length - this.inode.length));
  }
  async sync(): Promise<void> {
    this.inode.sync();
  }
  close(): void {}
}

class MemRandomAccessFile implements RandomAccessFile {
  constructor(
    readonly path: string,
    private readonly inode: Inode,
  ) {}
  get size(): number {
    return this.inode.length;
  }
  read(offset: number, length: number, into?: Buffer): Buffer {
    const end = Math.min(this.inode.length, offset + length);
    const bytes = this.inode.data.subarray(Math.min(offset, end), end);
    if (into === undefined || into.length < bytes.length) return Buffer.from(bytes);
    bytes.copy(into);
    return into.subarray(0, bytes.length);
  }
  close(): void {}
}
