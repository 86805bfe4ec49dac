import * as fs from 'node:fs';
import * as path from 'node:path';
import { TabletopError } from '../../model/errors.js';
import { LOCK_FILE } from '../file-names.js';
import { prepareDataDir } from './data-dir.js';

/**
 * One process per data directory: a LOCK file holding the owner's pid,
 * created exclusively, in a directory that prepareDataDir checked (and
 * created) first. A lock left by a process that is gone (kill -9, power
 * loss) is taken over; a live owner makes opening fail with a clear error.
 * Within one process the directories locked so far are remembered, so that a
 * second open of the same directory (by an embedder or a test) fails too:
 * the LOCK file's pid cannot tell it apart from a lock left by an earlier
 * process that had this pid.
 */
export function lockDataDir(dir: string): { release(): void } {
  prepareDataDir(dir);
  const file = path.join(dir, LOCK_FILE);
  const key = fs.realpathSync(dir);
  if (HELD.has(key)) throw new TabletopError('FailedPrecondition', `data directory ${dir} is in use by this process (${file})`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      HELD.add(key);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          HELD.delete(key);
          try {
            if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
          } catch {
            // Already gone.
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new TabletopError('FailedPrecondition', `data directory ${dir} is in use by process ${owner} (${file})`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new TabletopError('FailedPrecondition', `could not lock data directory ${dir}`);
}

/** The real paths of the data directories this process holds locked. */
const HELD = new Set<string>();

/** True when the process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
