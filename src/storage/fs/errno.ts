/**
 * The operating system's error code (ENOSPC, EMFILE, EIO, ...) behind an
 * error from a FileSystem, wherever it sits in the `cause` chain (node-fs
 * wraps Node's errors in TabletopErrors; fault-fs injects them with an
 * `errno`); undefined for errors that did not come from the system (a
 * bug, a checksum mismatch).
 */
export function errnoOf(e: unknown): string | undefined {
  for (let cur = e, depth = 0; cur !== undefined && cur !== null && depth < 8; depth++) {
    if (typeof cur !== 'object') return undefined;
    const o = cur as { errno?: unknown; code?: unknown; syscall?: unknown; cause?: unknown };
    if (typeof o.errno === 'string' && o.errno.startsWith('E')) return o.errno;
    // Node's own errors: a system call's code (TabletopErrors have codes too, which are not errnos).
    if (typeof o.syscall === 'string' && typeof o.code === 'string' && o.code.startsWith('E')) return o.code;
    cur = o.cause;
  }
  return undefined;
}

/** What an errno says to an operator, in a few words. */
export function errnoText(errno: string): string {
  switch (errno) {
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'EMFILE':
      return 'the process has too many open files';
    case 'ENFILE':
      return 'the system has too many open files';
    case 'EIO':
      return 'an I/O error from the disk';
    case 'ENOMEM':
      return 'out of memory';
    default:
      return errno;
  }
}
