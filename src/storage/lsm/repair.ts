import * as fs from 'node:fs';
import * as path from 'node:path';
import { TabletopError } from '../../model/errors.js';
import { CURRENT_FILE, WAL_DIR } from '../file-names.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import { lockDataDir } from './data-dir-lock.js';
import { openDiskEngine } from './disk-engine.js';
import type { CommitLogDamage, EngineEvent, EngineEventSink } from './engine-events.js';

export interface RepairResult {
  /** What replay skipped or dropped (empty: the commit logs were whole). */
  readonly damage: readonly CommitLogDamage[];
  /** Where the commit logs were copied before the repair, as they were; undefined when there was nothing to repair (the copy is removed). */
  readonly backup: string | undefined;
  /** Commit-log records read back, and rows among them put back (then flushed to SSTables). */
  readonly records: number;
  readonly rowsReplayed: number;
}

/**
 * `tabletop repair`: starts a data directory past damage in the middle of a
 * commit log, which a normal start refuses with DataLoss (it cannot know
 * what else was lost). Under the data directory's lock (never beside a
 * running server), the commit logs are first copied, as they are, to
 * `repair-<time>/wal/` in the directory; then the engine opens with
 * salvaging on: every intact record is replayed, each damaged stretch is
 * skipped and reported (its writes are lost), and recovery flushes what it
 * replayed to SSTables and retires the logs, so the next plain start needs
 * none of them. Damage elsewhere (the manifest, an SSTable) is not repaired:
 * the engine's error is thrown as it is.
 */
export async function repairDataDir(dir: string, options: { readonly onEvent?: EngineEventSink } = {}): Promise<RepairResult> {
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, CURRENT_FILE)))
    throw new TabletopError('FailedPrecondition', `${dir} holds no tabletop database (no ${CURRENT_FILE} file): nothing to repair`);
  const lock = lockDataDir(abs);
  try {
    const backup = path.join(abs, `repair-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    fs.cpSync(path.join(abs, WAL_DIR), path.join(backup, WAL_DIR), { recursive: true });
    let recovered: Extract<EngineEvent, { kind: 'recovered' }> | undefined;
    let engine;
    try {
      engine = await openDiskEngine({
        fs: createNodeFileSystem('/'),
        dir: abs,
        manualCompaction: true,
        salvageCommitLog: true,
        onEvent: (e) => {
          if (e.kind === 'recovered') recovered = e;
          options.onEvent?.(e);
        },
      });
    } catch (e) {
      fs.rmSync(backup, { recursive: true, force: true });
      throw e;
    }
    await engine.close();
    const damage = recovered?.logDamage ?? [];
    if (damage.length === 0) fs.rmSync(backup, { recursive: true, force: true });
    return {
      damage,
      backup: damage.length === 0 ? undefined : backup,
      records: recovered?.records ?? 0,
      rowsReplayed: recovered?.rowsReplayed ?? 0,
    };
  } finally {
    lock.release();
  }
}
