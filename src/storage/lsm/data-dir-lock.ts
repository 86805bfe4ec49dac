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
 * file while a waiter locks the old one); it holds the owner's pid (and, on
 * Linux, when that process started) only for the message that names it.
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
    // Name the owner only when the file is surely its: a loser can read the LOCK before the winner has replaced
    // what a crashed owner left (a dead pid, or one an unrelated process has since taken).
    const owner = confirmedOwner(readOwner(fd));
    fs.closeSync(fd);
    const who = owner === process.pid ? 'this process' : owner === undefined ? 'another process' : `process ${owner}`;
    throw new TabletopError('FailedPrecondition', `data directory ${dir} is in use by ${who} (${file})`);
  }
  try {
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, `${process.pid}${startMark(process.pid) ?? ''}\n`, 0);
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

/**
 * ` <start>`: when the process started, in clock ticks after boot (Linux /proc/<pid>/stat field 22), which a pid
 * reused by another process does not share; undefined where there is no /proc.
 */
function startMark(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces and parentheses) start after its last ')'.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start === undefined ? undefined : ` ${start}`;
  } catch {
    return undefined;
  }
}

/**
 * The pid a LOCK names, if it is surely the lock holder's: with /proc, the process with that pid started when the
 * file says; without, a process with that pid exists (EPERM: owned by another user).
 */
function confirmedOwner(read: { pid: number; mark: string | undefined } | undefined): number | undefined {
  if (read === undefined) return undefined;
  if (fs.existsSync('/proc/self/stat')) return read.mark !== undefined && startMark(read.pid) === read.mark ? read.pid : undefined;
  try {
    process.kill(read.pid, 0);
    return read.pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? read.pid : undefined;
  }
}

/** What a LOCK file says (`<pid>[ <start>]`), when its owner has written it. */
function readOwner(fd: number): { pid: number; mark: string | undefined } | undefined {
  const buf = Buffer.alloc(64);
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  const [p, start] = buf.subarray(0, n).toString('utf8').trim().split(' ');
  const pid = Number(p);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, mark: start === undefined ? undefined : ` ${start}` };
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
