import { readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';

/**
 * Everything the harness must undo when it ends, however it ends: servers
 * and load-generator processes to kill, temporary data directories to
 * remove. `cleanUpAll` is the graceful path (SIGINT, normal end);
 * `killAllNow` is the synchronous last resort from a process 'exit' hook.
 */

export interface Resource {
  readonly name: string;
  /** Graceful release (stop a server, remove a directory). */
  release(): Promise<void>;
  /** Synchronous, best-effort release for process exit. */
  releaseNow(): void;
}

const live = new Set<Resource>();
let exitHooked = false;

export function track(resource: Resource): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', killAllNow);
  }
  live.add(resource);
  return () => live.delete(resource);
}

/** Releases every tracked resource, newest first; reports failures instead of throwing. */
export async function cleanUpAll(report: (line: string) => void): Promise<void> {
  for (const r of [...live].reverse()) {
    try {
      await r.release();
    } catch (e) {
      report(`cleanup of ${r.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    live.delete(r);
  }
}

export function killAllNow(): void {
  for (const r of [...live].reverse()) {
    try {
      r.releaseNow();
    } catch {
      // The process is exiting; nothing more can be done here.
    }
  }
  live.clear();
}

const TEMP_PREFIX = 'tabletop-bench-';

/** A new temporary directory, removed by cleanup. Its name carries this process's pid. */
export function tempDir(purpose: string): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-${purpose}-`));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  const untrack = track({
    name: `temporary directory ${dir}`,
    release: async () => remove(),
    releaseNow: remove,
  });
  return {
    dir,
    remove: () => {
      remove();
      untrack();
    },
  };
}

/**
 * Removes temporary directories left by earlier harness processes that were
 * killed outright (SIGKILL gives no chance to clean up). A directory is stale
 * when the pid in its name is no longer alive. Returns the removed paths.
 */
export function sweepStaleTempDirs(): string[] {
  const removed: string[] = [];
  const root = os.tmpdir();
  for (const name of readdirSync(root)) {
    const m = /^tabletop-bench-(\d+)-/.exec(name);
    if (m === null) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    rmSync(path.join(root, name), { recursive: true, force: true });
    removed.push(path.join(root, name));
  }
  return removed;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
