/**
 * The manifest: the durable record of which files make up each store (tablet),
 * the catalog blobs, and the commit-log and file counters. Every change is a
 * batch of edits appended as one checksummed record (the commit-log framing of
 * storage/wal) and synced before it takes effect, so a crash at any point
 * leaves the previous or the next consistent state, never a mix.
 *
 * Files in the database directory (named by storage/file-names.ts):
 *   CURRENT             the name of the live manifest file, then "\n"
 *   MANIFEST-<number>   records; each payload is a JSON array of ManifestEdit
 *
 * A new manifest file starts with one record holding the whole state
 * (snapshotEdits), is synced, and only then does CURRENT switch to it
 * (write CURRENT.tmp, sync, rename, sync the directory). See
 * docs/format/manifest.md.
 */
import { TabletopError, dataLoss } from '../../model/errors.js';
import type { FileSystem } from '../fs/file-system.js';
import { join } from '../fs/file-system.js';
import { CURRENT_FILE, CURRENT_TMP_FILE, currentContent, manifestFileName, manifestNumber, parseCurrent } from '../file-names.js';
import { replayLog } from '../wal/log-reader.js';
import { LogWriter } from '../wal/log-writer.js';
import { applyEdit, emptyManifestState, type ManifestEdit, type ManifestState, snapshotEdits } from './manifest-state.js';

/** A new manifest file is started once the current one exceeds this. */
const REWRITE_BYTES = 8 * 1024 * 1024;

export class Manifest {
  private writer: LogWriter | undefined;
  private fileNumber = 0;
  /** Edits are serialised: one record at a time, in order. */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly fs: FileSystem,
    private readonly dir: string,
    readonly state: ManifestState,
  ) {}

  /** Loads the manifest named by CURRENT (an empty state when there is none), then starts a fresh manifest file. */
  static async open(fs: FileSystem, dir: string): Promise<Manifest> {
    const m = Manifest.load(fs, dir);
    await m.rewrite();
    return m;
  }

  /**
   * Reads the manifest as open() does, but writes nothing: `state` is the data directory's, and the manifest takes
   * edits only once startWriting() has written its new file (a disk too full to write to can still be read).
   */
  static load(fs: FileSystem, dir: string): Manifest {
    const state = emptyManifestState();
    const currentPath = join(dir, CURRENT_FILE);
    if (fs.exists(currentPath)) {
      const content = fs.readFile(currentPath).toString('latin1');
      const name = parseCurrent(content);
      if (name === undefined) throw dataLoss(`${currentPath}: malformed content ${JSON.stringify(content.slice(0, 40))}`);
      const path = join(dir, name);
      if (!fs.exists(path)) throw dataLoss(`${currentPath} names ${name}, which does not exist`);
      const { records } = replayLog(fs, path);
      if (records.length === 0) throw dataLoss(`${path}: no records`);
      records.forEach((payload, i) => {
        let edits: ManifestEdit[];
        try {
          edits = JSON.parse(payload.toString('utf8')) as ManifestEdit[];
        } catch {
          throw dataLoss(`${path}: record ${i} is not valid JSON`);
        }
        for (const e of edits) applyEdit(state, e);
      });
    }
    return new Manifest(fs, dir, state);
  }

  /** Whether the manifest takes edits (open(), or load() then startWriting()). */
  get writable(): boolean {
    return this.writer !== undefined;
  }

  /** After load(): writes the new manifest file and points CURRENT at it; if that fails, what it wrote is removed. */
  startWriting(): Promise<void> {
    return this.rewrite();
  }

  /** Allocates a file number (made durable by the next edit). */
  newFileNumber(): number {
    return this.state.nextFileNumber++;
  }

  /**
   * Applies a batch of edits atomically: appended and synced, then applied to
   * the in-memory state. Batches apply in call order.
   */
  apply(edits: readonly ManifestEdit[]): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.writer === undefined) throw new TabletopError('Unavailable', 'the manifest is closed');
      const all: ManifestEdit[] = [...edits, { op: 'nextFileNumber', number: this.state.nextFileNumber }];
      await this.writer!.append(Buffer.from(JSON.stringify(all), 'utf8'));
      for (const e of all) applyEdit(this.state, e);
      if (this.writer!.size > REWRITE_BYTES) await this.rewrite();
    };
    const p = this.queue.then(run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** Closes the manifest file once the edits already asked for are written (or failed). */
  async close(): Promise<void> {
    await this.queue;
    this.writer?.close();
    this.writer = undefined;
  }

  /** Starts a new manifest file holding the whole state and points CURRENT at it. */
  private async rewrite(): Promise<void> {
    const old = this.fileNumber;
    this.fileNumber = this.state.nextFileNumber++;
    const name = manifestFileName(this.fileNumber);
    const file = this.fs.create(join(this.dir, name));
    const writer = new LogWriter(file);
    try {
      await writer.append(Buffer.from(JSON.stringify(snapshotEdits(this.state)), 'utf8'));
      const tmp = this.fs.create(join(this.dir, CURRENT_TMP_FILE));
      try {
        tmp.append(Buffer.from(currentContent(name), 'latin1'));
        await tmp.sync();
      } finally {
        tmp.close();
      }
    } catch (e) {
      // CURRENT still names the old file: the new one is nobody's (a full disk must not fill up with them).
      writer.close();
      this.fileNumber = old;
      for (const f of [name, CURRENT_TMP_FILE]) {
        try {
          this.fs.remove(join(this.dir, f));
        } catch {
          // Already gone, or never made.
        }
      }
      throw e;
    }
    this.fs.rename(join(this.dir, CURRENT_TMP_FILE), join(this.dir, CURRENT_FILE));
    await this.fs.syncDir(this.dir);
    this.writer?.close();
    this.writer = writer;
    for (const f of this.fs.list(this.dir)) {
      const n = manifestNumber(f);
      if (n !== undefined && f !== name && (old === 0 || n <= old)) this.fs.remove(join(this.dir, f));
    }
  }
}
