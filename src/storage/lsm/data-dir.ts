import * as fs from 'node:fs';
import * as path from 'node:path';
import { TabletopError, invalidArgument } from '../../model/errors.js';

/**
 * Makes sure `dir` can hold a database, before anything opens it (and before
 * a server opens its ports): it exists or is created, it is a directory, and
 * this process may read and write in it. Every way that fails is reported as
 * what it is, naming the path at fault:
 *   - an empty path (InvalidArgument);
 *   - a file (or anything but a directory) where the directory or one of its
 *     parents should be;
 *   - no permission to create it or to write in it (with the owner, the mode
 *     and the user tabletop runs as);
 *   - a read-only file system;
 *   - a place where directories cannot be created (/proc, /sys).
 * Each of these is a FailedPrecondition. Returns the absolute path.
 *
 * Missing directories are created one level at a time: Node's recursive
 * mkdirSync never returns on some paths (`/proc/x` spins a CPU forever).
 */
export function prepareDataDir(dir: string): string {
  if (dir.trim() === '') throw invalidArgument('the data directory path is empty: give a directory, such as ./data');
  const abs = path.resolve(dir);
  const existing = nearestExisting(abs);
  if (!existing.stat.isDirectory()) {
    const what = describeKind(existing.stat);
    throw failed(
      existing.path === abs
        ? `data directory ${dir} is ${what}, not a directory`
        : `cannot create data directory ${dir}: ${existing.path} is ${what}, not a directory`,
    );
  }
  if (existing.path === abs) {
    checkAccess(dir, abs, existing.stat);
    return abs;
  }
  checkAccess(dir, existing.path, existing.stat, true);
  // Create the missing levels, from the one below the existing ancestor down to `abs`.
  const missing = path.relative(existing.path, abs).split(path.sep);
  let at = existing.path;
  for (const part of missing) {
    at = path.join(at, part);
    try {
      fs.mkdirSync(at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && fs.statSync(at).isDirectory()) continue; // created meanwhile
      throw failed(`cannot create data directory ${dir}: ${reason(code, path.dirname(at), e)}`);
    }
  }
  return abs;
}

/** The path itself or its closest ancestor that exists, with its stat. */
function nearestExisting(abs: string): { path: string; stat: fs.Stats } {
  for (let p = abs; ; p = path.dirname(p)) {
    try {
      return { path: p, stat: fs.statSync(p) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw failed(`cannot use data directory ${abs}: ${reason(code, p, e)}`);
      if (path.dirname(p) === p) throw failed(`cannot use data directory ${abs}: no part of the path exists`);
    }
  }
}

/** Checks that this process may list, enter and write in `at` (for creating under it when `creating`). */
function checkAccess(dir: string, at: string, stat: fs.Stats, creating = false): void {
  try {
    fs.accessSync(at, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      const doing = creating ? `create data directory ${dir} in ${at}` : `read and write in data directory ${dir}`;
      throw failed(`no permission to ${doing}: ${ownership(at, stat)}`);
    }
    throw failed(`cannot use data directory ${dir}: ${reason(code, at, e)}`);
  }
}

function reason(code: string | undefined, at: string, e: unknown): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM': {
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(at);
      } catch {
        // Described without the owner then.
      }
      return stat === undefined
        ? `no permission to create directories in ${at}`
        : `no permission to create directories in ${at} (${ownership(at, stat)})`;
    }
    case 'EROFS':
      return `${at} is on a read-only file system`;
    case 'ENOENT':
      return `directories cannot be created in ${at}`;
    case 'ENOSPC':
      return `the file system of ${at} is full`;
    case 'ENOTDIR':
      return `a part of ${at} is not a directory`;
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

function ownership(at: string, stat: fs.Stats): string {
  const runsAs = typeof process.getuid === 'function' ? `; tabletop runs as uid ${process.getuid()}` : '';
  return `${at} is owned by uid ${stat.uid}, mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}${runsAs}`;
}

function describeKind(stat: fs.Stats): string {
  if (stat.isFile()) return 'a file';
  if (stat.isSocket()) return 'a socket';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'neither a file nor a directory';
}

function failed(message: string): TabletopError {
  return new TabletopError('FailedPrecondition', message);
}
