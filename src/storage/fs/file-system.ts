/**
 * The FileSystem contract: every byte the durable engine reads or writes goes
 * through it, so tests can swap the disk for memory, for a filesystem that
 * "crashes" (loses what was not synced), or for one that injects faults.
 *
 * Paths are POSIX-style, absolute or relative to the implementation's root.
 *
 * Durability model (what a crash may lose), as on a POSIX disk:
 *  - data appended to a WritableFile is durable only once `sync()` resolves;
 *  - bytes written over a file's old bytes (`reuse`) are durable only once
 *    `sync()` resolves; until then a crash may leave the new bytes, the old
 *    ones, or a prefix of the new followed by the old;
 *  - creating, renaming or removing a directory entry is durable only once
 *    `syncDir()` of its parent directory resolves.
 *
 * Reads are synchronous on purpose: a pread from the page cache costs ~1 µs
 * while a thread-pool round trip costs ~15–50 µs, and reads are on the hot
 * path. Syncs return a promise so that one fsync can serve many writers
 * (group commit); an implementation may complete a small sync before it
 * returns (node-fs.ts does, for ≤ 64 KiB written since the last sync).
 */
export interface FileSystem {
  /** Creates an empty file (replacing any file of that name) for appending. */
  create(path: string): WritableFile;
  /**
   * Opens an existing file to write it again from its start, over its old
   * bytes: the file keeps its length (and its blocks) until the writes pass
   * it, and bytes past the last write keep their old content. Rewriting
   * blocks a file already has lets fdatasync skip the filesystem's metadata
   * journal (the commit log reuses old log files this way). NotFound when
   * missing.
   */
  reuse(path: string): WritableFile;
  /** Opens an existing file for random reads. NotFound when missing. */
  openRead(path: string): RandomAccessFile;
  /** The whole content of a file. */
  readFile(path: string): Buffer;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): void;
  /** Removes a file; no error when it is already gone. */
  remove(path: string): void;
  /**
   * Removes a file off the calling thread (libuv's pool): for files nothing refers to any more, whose removal need
   * not be done before the caller goes on. Unlinking a large file takes the file system milliseconds (~10 ms for
   * 25 MiB here), which on the serving thread every request would wait for. Absent: remove() is used.
   */
  removeInBackground?(path: string): Promise<void>;
  /** File names (not paths) in a directory, sorted; [] when it does not exist. */
  list(dir: string): string[];
  /** Creates a directory and its parents. */
  mkdirp(dir: string): void;
  exists(path: string): boolean;
  /** Size in bytes of a file. */
  size(path: string): number;
  /** Bytes free for this process on the disk holding `dir` (statfs); absent where the file system cannot tell. */
  freeBytes?(dir: string): number;
  /** Makes the directory's entries (creates, renames, removes) durable. */
  syncDir(dir: string): Promise<void>;
}

export interface WritableFile {
  readonly path: string;
  /** Bytes written through this handle so far (the position of the next append). */
  readonly size: number;
  /** Writes bytes at the handle's position and advances it (not yet durable). The caller may reuse `data` once it returns. */
  append(data: Uint8Array): void;
  /** Appends `parts` one after another, as one write where the platform allows (writev): no joined copy of them is made. */
  appendv(parts: readonly Uint8Array[]): void;
  /** The file's length in bytes: at least `size` (a reused file keeps its old bytes past the writes). */
  readonly length: number;
  /**
   * Writes zeros from the end of the file up to `length` bytes (nothing if it
   * is that long already), without moving the append position: later appends
   * write over them. Only while the append position is at the end of the
   * file, and not durable until a sync. A commit log extends its file ahead
   * of its writes so that most syncs do not change the file's size (on ext4
   * a size change makes fdatasync commit the journal too).
   */
  extend(length: number): void;
  /** Makes everything appended so far durable. */
  sync(): Promise<void>;
  close(): void;
  /**
   * The operating system's descriptor of the file, for another thread of this process (every thread shares the
   * process's descriptors) to write the file's next bytes itself from `size` on, reporting each write with
   * `advanced`: a build worker writes the SSTable it builds this way, and the serving thread only syncs and closes it.
   * The descriptor must stay open until that thread is done with it. Absent where the file is not one of the operating
   * system's (the memory and fault-injecting file systems): its bytes must come through append.
   */
  readonly descriptor?: number;
  /** Another thread wrote `bytes` more at the handle's position through `descriptor`: the position moves past them. */
  advanced?(bytes: number): void;
}

export interface RandomAccessFile {
  readonly path: string;
  readonly size: number;
  /**
   * Reads exactly `length` bytes at `offset` (fewer only at end of file). With `into` (at least `length` bytes), the
   * bytes land in it and the result is a view of it, valid until the caller reuses `into`: a scratch buffer for bytes
   * that are decoded and dropped, so that reading them allocates nothing.
   */
  read(offset: number, length: number, into?: Buffer): Buffer;
  close(): void;
}

/** The parent directory of a path ('.' for a bare name). */
export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : path.slice(0, i);
}

/** Joins path segments with '/'. */
export function join(...parts: string[]): string {
  return parts
    .filter((p) => p.length > 0)
    .join('/')
    .replace(/\/+/g, '/');
}
