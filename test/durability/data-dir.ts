import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CatalogState } from '../../src/db/catalog/catalog-state.js';
import { CATALOG_META_KEY } from '../../src/db/database.js';
import { CURRENT_FILE, fileNumber, isLegacyWal, parseCurrent, sstName, WAL_DIR } from '../../src/storage/file-names.js';
import { applyEdit, emptyManifestState, type ManifestEdit, type ManifestState } from '../../src/storage/manifest/manifest-state.js';
import { HEADER_BYTES, RECYCLABLE_HEADER_BYTES, decodeRecord, decodeRecyclableRecord } from '../../src/storage/wal/log-format.js';

/**
 * Reading a stopped server's data directory from the outside, to find the
 * files to damage. Layout (src/storage/file-names.ts):
 *
 *   CURRENT            "MANIFEST-<n>\n"
 *   MANIFEST-<n>       log records (src/storage/wal/log-format.ts), each a JSON array of edits
 *   sst/NNNNNN.sst     SSTables, named by file number
 *   wal/NNNNNN.wal     commit-log files (recyclable framing, log number NNNNNN; NNNNNN.log: older plain framing)
 *
 * The manifest's 'catalog' meta entry maps tables to tablets, whose ids are
 * the store ids that `addFiles` edits name. Only for a directory no server
 * is using: the files change under a live one.
 */
export interface DataDirView {
  readonly dir: string;
  readonly manifest: ManifestState;
  readonly catalog: CatalogState | undefined;
}

export function readDataDir(dir: string): DataDirView {
  const current = readFileSync(path.join(dir, CURRENT_FILE), 'latin1');
  const name = parseCurrent(current);
  if (name === undefined) throw new Error(`${dir}/CURRENT holds ${JSON.stringify(current)}, not a manifest name`);
  const data = readFileSync(path.join(dir, name));
  const manifest = emptyManifestState();
  let offset = 0;
  for (;;) {
    const r = decodeRecord(data, offset);
    // A torn last record was never acknowledged: the server ignores it too.
    if (r.kind !== 'record') break;
    for (const edit of JSON.parse(r.payload.toString('utf8')) as ManifestEdit[]) applyEdit(manifest, edit);
    offset = r.next;
  }
  const catalogJson = manifest.meta.get(CATALOG_META_KEY);
  return { dir, manifest, catalog: catalogJson === undefined ? undefined : (JSON.parse(catalogJson) as CatalogState) };
}

/** The store (tablet) ids of a table, from the catalog. */
export function storesOfTable(view: DataDirView, tableId: string, instanceId = 'i'): string[] {
  const instance = view.catalog?.instances.find((i) => i.id === instanceId);
  const table = instance?.tables.find((t) => t.id === tableId);
  if (table === undefined) throw new Error(`table ${instanceId}/${tableId} is not in the catalog of ${view.dir}`);
  return table.tablets.map((t) => t.id);
}

export interface SstFile {
  readonly number: number;
  /** File name as error messages give it, e.g. 000012.sst. */
  readonly name: string;
  readonly path: string;
  readonly size: number;
  readonly entries: number;
}

/** The live SSTables of a table (all its tablets; a file shared by tablets after a split once), largest first. */
export function sstFilesOfTable(view: DataDirView, tableId: string): SstFile[] {
  const files: SstFile[] = [];
  const seen = new Set<number>();
  for (const id of storesOfTable(view, tableId)) {
    for (const meta of view.manifest.stores.get(id)?.files ?? []) {
      if (seen.has(meta.number)) continue;
      seen.add(meta.number);
      const file = path.join(view.dir, sstName(meta.number));
      const name = path.basename(file);
      files.push({ number: meta.number, name, path: file, size: statSync(file).size, entries: meta.entries });
    }
  }
  return files.sort((a, b) => b.size - a.size);
}

/** Numbers of every live SSTable of every store. */
export function liveSstNumbers(view: DataDirView): Set<number> {
  const out = new Set<number>();
  for (const s of view.manifest.stores.values()) for (const f of s.files) out.add(f.number);
  return out;
}

/** Commit-log files, oldest first (full paths). */
export function walFiles(dir: string): string[] {
  return readdirSync(path.join(dir, WAL_DIR))
    .filter((n) => /^\d+\.(log|wal)$/.test(n))
    .sort()
    .map((n) => path.join(dir, WAL_DIR, n));
}

/** The payloads of a commit-log file's valid records, where the valid prefix ends, and each record's header size. */
export function walRecords(file: string): { records: Buffer[]; validBytes: number; size: number; headerBytes: number } {
  const data = readFileSync(file);
  const name = path.basename(file);
  const recyclable = !isLegacyWal(name);
  const log = fileNumber(name);
  const records: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const r = recyclable ? decodeRecyclableRecord(data, offset, log) : decodeRecord(data, offset);
    if (r.kind === 'marker') {
      // The sync marker in front of each group of records (docs/format/commit-log.md).
      offset = r.next;
      continue;
    }
    if (r.kind !== 'record') break;
    records.push(r.payload);
    offset = r.next;
  }
  return { records, validBytes: offset, size: data.length, headerBytes: recyclable ? RECYCLABLE_HEADER_BYTES : HEADER_BYTES };
}

const FOOTER_BYTES = 64;

/**
 * Where an SSTable's data blocks are: from offset 0 to the first of the
 * filter and properties blocks (docs/format/sstable.md: footer handles at
 * bytes 16 and 32 of the 64-byte footer, offset:u64le size:u64le).
 */
export function dataRegion(file: string): { start: number; end: number } {
  const data = readFileSync(file);
  if (data.length < FOOTER_BYTES) throw new Error(`${file} is shorter than an SSTable footer`);
  const footer = data.subarray(data.length - FOOTER_BYTES);
  const properties = Number(footer.readBigUInt64LE(16));
  const filterOffset = Number(footer.readBigUInt64LE(32));
  const filterSize = Number(footer.readBigUInt64LE(40));
  const end = filterSize > 0 ? Math.min(filterOffset, properties) : properties;
  return { start: 0, end };
}
