import type { FileSystem, WritableFile } from '../fs/file-system.js';

/**
 * A file whose syncs take effect only once `wait()` resolves, as a disk's
 * fsync takes time: a crash (MemoryFileSystem.crash) can come between the
 * write and its sync, and find written but unsynced bytes.
 */
export function slowSyncFile(f: WritableFile, wait: (path: string) => Promise<void>): WritableFile {
  return {
    get path() {
      return f.path;
    },
    get size() {
      return f.size;
    },
    append: (d) => f.append(d),
    appendv: (parts) => f.appendv(parts),
    get length() {
      return f.length;
    },
    extend: (n) => f.extend(n),
    sync: async () => {
      await wait(f.path);
      await f.sync();
    },
    close: () => f.close(),
  };
}

/** A filesystem whose writable files (created or reused) sync slowly (see slowSyncFile); `wait` is told the file's path. */
export function slowSyncFs(inner: FileSystem, wait: (path: string) => Promise<void>): FileSystem {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'create' || prop === 'reuse') return (path: string) => slowSyncFile(target[prop](path), wait);
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
