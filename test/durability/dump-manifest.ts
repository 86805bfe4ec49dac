/**
 * Prints the manifest of a stopped server's data directory, one line per
 * record: the edits, with the catalog shown as its tables and their tablet
 * (store) ids. For reading the snapshots the crash test keeps
 * (TABLETOP_KILL_SNAPSHOTS=1):
 *
 *   npx tsx test/durability/dump-manifest.ts /tmp/tabletop-kill-XXXX.crash-7
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CatalogState } from '../../src/db/catalog/catalog-state.js';
import type { ManifestEdit } from '../../src/storage/manifest/manifest-state.js';
import { decodeRecord } from '../../src/storage/wal/log-format.js';

function describeEdit(e: ManifestEdit): string | undefined {
  switch (e.op) {
    case 'setMeta': {
      if (e.key !== 'catalog' || e.value === null) return `setMeta ${e.key}`;
      const catalog = JSON.parse(e.value) as CatalogState;
      const tables = catalog.instances.flatMap((i) => i.tables.map((t) => `${i.id}/${t.id}[${t.tablets.map((x) => x.id).join(',')}]`));
      return `catalog{${tables.join(' ')}}`;
    }
    case 'addFiles':
      return `addFiles ${e.id} ${e.files.map((f) => f.number).join(',')}`;
    case 'removeFiles':
      return `removeFiles ${e.id} ${e.numbers.join(',')}`;
    case 'nextFileNumber':
    case 'lastSeq':
      return undefined;
    default:
      return 'id' in e ? `${e.op} ${e.id}` : e.op;
  }
}

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: tsx test/durability/dump-manifest.ts DATA_DIR');
  process.exit(2);
}
const name = readFileSync(path.join(dir, 'CURRENT'), 'latin1').trim();
const data = readFileSync(path.join(dir, name));
console.log(`${name}, ${data.length} bytes`);
let offset = 0;
for (let i = 0; ; i++) {
  const r = decodeRecord(data, offset);
  if (r.kind === 'end') break;
  if (r.kind === 'bad') {
    console.log(`record ${i} at ${offset}: ${r.reason} (a torn tail if nothing valid follows)`);
    break;
  }
  const edits = JSON.parse(r.payload.toString('utf8')) as ManifestEdit[];
  console.log(
    `${i}: ${edits
      .map(describeEdit)
      .filter((d) => d !== undefined)
      .join(' | ')}`,
  );
  offset = r.next;
}
