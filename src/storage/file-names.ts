/**
 * The files of a data directory and their names, built and parsed here only
 * (docs/format/manifest.md, docs/format/commit-log.md):
 *
 *   CURRENT           the name of the live manifest file, then "\n"
 *   CURRENT.tmp       the next CURRENT, renamed over it once synced
 *   MANIFEST-NNNNNN   the manifest (storage/manifest)
 *   LOCK              locked by the kernel for the process that has the directory open; holds its pid (lsm/data-dir-lock.ts)
 *   wal/NNNNNN.wal    commit-log files (recyclable framing, log-format.ts), NNNNNN being the log number
 *   wal/NNNNNN.log    commit-log files of earlier versions (plain framing): replayed, never written
 *   sst/NNNNNN.sst    SSTables
 *
 * NNNNNN is a number from the manifest's one counter (nextFileNumber), so
 * no two files share it, zero-padded to six digits (more once it needs
 * them). DO NOT CHANGE: data directories already written are read by these
 * names.
 */
import { join } from './fs/file-system.js';

export const CURRENT_FILE = 'CURRENT';
export const CURRENT_TMP_FILE = 'CURRENT.tmp';
export const LOCK_FILE = 'LOCK';
/** The directory of commit-log files. */
export const WAL_DIR = 'wal';
/** The directory of SSTables. */
export const SST_DIR = 'sst';

const MANIFEST_PREFIX = 'MANIFEST-';
const LEGACY_WAL_SUFFIX = '.log';

function padded(n: number): string {
  return String(n).padStart(6, '0');
}

/** The SSTable numbered `n`, relative to the data directory. */
export function sstName(n: number): string {
  return join(SST_DIR, `${padded(n)}.sst`);
}

/** The commit-log file numbered `n` (recyclable framing), relative to the data directory. */
export function walName(n: number): string {
  return join(WAL_DIR, `${padded(n)}.wal`);
}

/** The manifest file numbered `n`, in the data directory. */
export function manifestFileName(n: number): string {
  return `${MANIFEST_PREFIX}${padded(n)}`;
}

/** The number of a file in wal/ or sst/ (its name up to the first dot): NaN or a fraction when it is not one of ours. */
export function fileNumber(name: string): number {
  return Number(name.slice(0, name.indexOf('.')));
}

/** True for a commit-log file of an earlier version (plain framing, no log number in its records). */
export function isLegacyWal(name: string): boolean {
  return name.endsWith(LEGACY_WAL_SUFFIX);
}

/** The number of a manifest file's name (NaN when what follows the prefix is not a number), or undefined for any other name. */
export function manifestNumber(name: string): number | undefined {
  return name.startsWith(MANIFEST_PREFIX) ? Number(name.slice(MANIFEST_PREFIX.length)) : undefined;
}

/** What CURRENT holds when it names manifest file `name`. */
export function currentContent(name: string): string {
  return `${name}\n`;
}

/** The manifest file that CURRENT's content names, or undefined when the content is malformed. */
export function parseCurrent(content: string): string | undefined {
  return /^MANIFEST-\d+\n$/.test(content) ? content.trim() : undefined;
}
