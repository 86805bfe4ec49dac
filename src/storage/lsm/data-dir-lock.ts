import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { TabletopError } from '../../model/errors.js';
import { LOCK_FILE } from '../file-names.js';
import { prepareDataDir } from './data-dir.js';

/**
 * One process per data directory, held by the kernel: an exclusive advisory
 * lock on the LOCK file (an open-file-description lock, fcntl F_OFD_SETLK on
 * Linux, flock on macOS, LockFileEx on Windows, through fs-native-extensions).
 * The kernel releases it when the descriptor closes or the process dies in any
 * way, so a dead owner never leaves a lock behind and there is no take-over
 * logic to race. The lock belongs to the open file description, not to the
 * process, so a second open of the directory in the same process is refused
 * too. The file is never removed (removing it would let a newcomer lock a new
 * file while a waiter locks the old one); it holds the owner's pid only for
 * the message that names it.
 */
export function lockDataDir(dir: string): { release(): void } {
  prepareDataDir(dir);
  const file = path.join(dir, LOCK_FILE);
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
  let locked: boolean;
  try {
    locked = nativeLocks().tryLock(fd);
  } catch (e) {
    fs.closeSync(fd);
    // ENOLCK, or a file system without locks: refusing is the only safe answer.
    throw new TabletopError('FailedPrecondition', `could not lock data directory ${dir} (${file}): ${(e as Error).message}`);
  }
  if (!locked) {
    // A pid of a process that is gone was left by a dead owner, and the winner has not replaced it yet.
    const read = readOwner(fd);
    const owner = read !== undefined && alive(read) ? read : undefined;
    fs.closeSync(fd);
    const who = owner === process.pid ? 'this process' : owner === undefined ? 'another process' : `process ${owner}`;
    throw new TabletopError('FailedPrecondition', `data directory ${dir} is in use by ${who} (${file})`);
  }
  try {
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, `${process.pid}\n`, 0);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        fs.ftruncateSync(fd, 0);
      } finally {
        // Closing the descriptor is what releases the lock.
        fs.closeSync(fd);
      }
    },
  };
}

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a LOCK file, when its owner has written one. */
function readOwner(fd: number): number | undefined {
  const buf = Buffer.alloc(32);
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  const pid = Number(buf.subarray(0, n).toString('utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

interface NativeLocks {
  /** Takes an exclusive lock on the whole file without waiting: false when another description holds it. */
  tryLock(fd: number): boolean;
}

let native: NativeLocks | undefined;

/** fs-native-extensions, loaded on the first lock (only durable stores need it), with a clear error if its addon cannot load. */
function nativeLocks(): NativeLocks {
  if (native !== undefined) return native;
  try {
    native = createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;
  } catch (e) {
    throw new TabletopError(
      'FailedPrecondition',
      `the file-lock addon (fs-native-extensions) does not load on this platform (${process.platform}-${process.arch}): ${(e as Error).message}; ` +
        'a durable data directory needs it to keep a second server out; use --in-memory, or a platform it ships for',
    );
  }
  return native;
}
