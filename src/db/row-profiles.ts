import type { ByteString } from '../model/bytes.js';
import type { Cell } from '../model/cell.js';
import type { TabletMap } from '../tablet/tablet-map.js';
import { seenRowBytes } from './usage.js';

/** Qualifiers a family's profile names at most. */
const QUALIFIERS_PER_FAMILY = 10;

/** The shape of one stored row (the schema advisor's RowProfile, src/insight/advisor/types.ts). */
export interface RowShape {
  readonly key: ByteString;
  /** Stored bytes of the row (key + qualifiers + values of every version), as reads count them. */
  readonly bytes: number;
  /** Per family, in storage order. */
  readonly families: readonly FamilyShape[];
}

export interface FamilyShape {
  readonly family: string;
  readonly cells: number;
  readonly columns: number;
  /** Most versions (cells) of one column in this row. */
  readonly maxVersions: number;
  readonly maxCellBytes: number;
  /** The first QUALIFIERS_PER_FAMILY qualifiers, as stored. */
  readonly qualifiers: readonly ByteString[];
  /** Every column's newest cell holds 8 bytes (a big-endian 64-bit integer: what increments write). */
  readonly counterLike: boolean;
}

/**
 * The shapes of the rows with these keys (missing rows are left out), read
 * from the stores directly: records no usage, so that looking at a table does
 * not show up as its traffic. Reads one row at a time: what it holds at once
 * is one row (bounded by the row-size limit) and the shapes.
 */
export async function profileRows(map: TabletMap, keys: readonly ByteString[]): Promise<RowShape[]> {
  const out: RowShape[] = [];
  for (const key of keys) {
    let row = map.locate(key).store.get(key);
    if (row instanceof Promise) row = await row;
    if (row === undefined || row.cells.length === 0) continue;
    out.push({ key, bytes: seenRowBytes(key, row.cells), families: familyShapes(row.cells) });
  }
  return out;
}

/** Cells in storage order (family, qualifier, timestamp descending) grouped into family shapes. */
function familyShapes(cells: readonly Cell[]): FamilyShape[] {
  const out: FamilyShape[] = [];
  let i = 0;
  while (i < cells.length) {
    const family = cells[i]!.family;
    let n = 0;
    let columns = 0;
    let maxVersions = 0;
    let maxCellBytes = 0;
    let counterLike = true;
    const qualifiers: ByteString[] = [];
    while (i < cells.length && cells[i]!.family === family) {
      const qualifier = cells[i]!.qualifier;
      // The newest version comes first.
      if (cells[i]!.value.byteLength !== 8) counterLike = false;
      columns++;
      if (qualifiers.length < QUALIFIERS_PER_FAMILY) qualifiers.push(qualifier);
      let versions = 0;
      while (i < cells.length && cells[i]!.family === family && cells[i]!.qualifier === qualifier) {
        versions++;
        maxCellBytes = Math.max(maxCellBytes, cells[i]!.value.byteLength);
        i++;
      }
      n += versions;
      maxVersions = Math.max(maxVersions, versions);
    }
    out.push({ family, cells: n, columns, maxVersions, maxCellBytes, qualifiers, counterLike });
  }
  return out;
}
