import { readFileSync, statSync } from 'node:fs';

/**
 * A file's parsed content that follows the file: current() looks at the
 * file's identity (inode, size, mtime) at most once per `checkMillis` and
 * re-reads it when that changed, so that a change made by another process
 * (`tabletop auth revoke-token`, a new JWKS) applies within about that long.
 *
 * A missing file parses as `missing`. When a re-read fails (the file is
 * being replaced by hand, or is broken), the previous content stays and
 * `onError` is told once per change; the first read's failure throws.
 */
export interface WatchedFile<T> {
  current(): T;
}

export function watchedFile<T>(opts: {
  readonly path: string;
  readonly parse: (text: string) => T;
  readonly missing: () => T;
  readonly onError?: ((e: Error) => void) | undefined;
  readonly now?: (() => number) | undefined;
  readonly checkMillis?: number | undefined;
}): WatchedFile<T> {
  const now = opts.now ?? Date.now;
  const checkMillis = opts.checkMillis ?? 1000;
  const identity = (): string => {
    try {
      const s = statSync(opts.path, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch (e) {
      // ENOTDIR: a data directory that is a file, which the engine reports as what it is.
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
      throw e;
    }
  };
  const load = (id: string): T => (id === 'missing' ? opts.missing() : opts.parse(readFileSync(opts.path, 'utf8')));
  let seen = identity();
  let value = load(seen);
  let checked = now();
  return {
    current(): T {
      if (now() - checked < checkMillis) return value;
      checked = now();
      let id: string;
      try {
        id = identity();
        if (id === seen) return value;
        value = load(id);
      } catch (e) {
        opts.onError?.(e instanceof Error ? e : new Error(String(e)));
        // Not again until the file changes once more.
        try {
          seen = identity();
        } catch {
          // keep the old identity
        }
        return value;
      }
      seen = id;
      return value;
    },
  };
}
