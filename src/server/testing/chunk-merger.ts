import type { Cell, Row } from '../../model/cell.js';

/**
 * A strict client-side ReadRows chunk merger for tests: rebuilds rows from
 * decoded ReadRowsResponse objects (loader options: camelCase, no defaults)
 * and throws on any violation of the chunk rules tabletop promises
 * (bigtable-wire.md): rows never split across messages, row key only on a
 * row's first chunk, family only with qualifier, value_size only on non-final
 * pieces, commit_row on each row's last chunk, keys strictly ordered.
 */
export interface DecodedChunk {
  rowKey?: Buffer;
  familyName?: { value?: string };
  qualifier?: { value?: Buffer };
  timestampMicros?: string;
  labels?: string[];
  value?: Buffer;
  valueSize?: number;
  commitRow?: boolean;
  resetRow?: boolean;
}

export interface DecodedResponse {
  chunks?: DecodedChunk[];
  lastScannedRowKey?: Buffer;
  requestStats?: unknown;
}

export interface Merged {
  readonly rows: Row[];
  /** Per message: row keys committed in it, or a heartbeat key. */
  readonly messages: { rows: string[]; lastScannedRowKey?: string; stats: boolean }[];
}

export function mergeChunks(responses: readonly DecodedResponse[], reversed = false): Merged {
  const rows: Row[] = [];
  const messages: Merged['messages'] = [];
  let lastKey: string | undefined;
  for (const [m, res] of responses.entries()) {
    const info: Merged['messages'][number] = { rows: [], stats: res.requestStats != null };
    if (res.lastScannedRowKey != null && res.lastScannedRowKey.length > 0) {
      if ((res.chunks ?? []).length > 0) throw new Error(`message ${m}: last_scanned_row_key together with chunks`);
      const k = res.lastScannedRowKey.toString('latin1');
      if (lastKey !== undefined && (reversed ? k >= lastKey : k <= lastKey))
        throw new Error(`message ${m}: last_scanned_row_key ${k} does not advance past ${lastKey}`);
      info.lastScannedRowKey = k;
      lastKey = k;
    }
    let key: string | undefined;
    let cells: Cell[] = [];
    let family: string | undefined;
    let qualifier: string | undefined;
    let pending: { timestamp: number; labels: string[]; parts: Buffer[]; size: number } | undefined;
    for (const [i, c] of (res.chunks ?? []).entries()) {
      const where = `message ${m} chunk ${i}`;
      if (c.resetRow) throw new Error(`${where}: reset_row is never expected from tabletop`);
      if (pending === undefined) {
        if (key === undefined) {
          if (c.rowKey == null || c.rowKey.length === 0) throw new Error(`${where}: a new row must start with row_key`);
          key = c.rowKey.toString('latin1');
          if (lastKey !== undefined && (reversed ? key >= lastKey : key <= lastKey))
            throw new Error(`${where}: row ${key} out of order after ${lastKey}`);
          if (c.familyName == null || c.qualifier == null)
            throw new Error(`${where}: a row's first chunk must carry family_name and qualifier`);
        } else if (c.rowKey != null && c.rowKey.length > 0) throw new Error(`${where}: row_key repeated inside a row`);
        if (c.familyName != null) {
          if (c.qualifier == null) throw new Error(`${where}: family_name without qualifier`);
          family = c.familyName.value ?? '';
        }
        if (c.qualifier != null) qualifier = (c.qualifier.value ?? Buffer.alloc(0)).toString('latin1');
        if (family === undefined || qualifier === undefined) throw new Error(`${where}: no family/qualifier`);
        pending = { timestamp: Number(c.timestampMicros ?? 0), labels: c.labels ?? [], parts: [], size: c.valueSize ?? 0 };
      } else {
        if (c.rowKey != null || c.familyName != null || c.qualifier != null || c.timestampMicros != null || (c.labels ?? []).length > 0) {
          throw new Error(`${where}: a value continuation must carry only value (and value_size)`);
        }
      }
      pending.parts.push(c.value ?? Buffer.alloc(0));
      if ((c.valueSize ?? 0) > 0) {
        if (c.commitRow) throw new Error(`${where}: commit_row on a non-final value piece`);
        if (c.valueSize !== pending.size) throw new Error(`${where}: value_size changed within a cell`);
        continue;
      }
      const value = Buffer.concat(pending.parts);
      if (pending.size > 0 && value.length !== pending.size)
        throw new Error(`${where}: value is ${value.length} bytes, value_size said ${pending.size}`);
      cells.push({ family: family!, qualifier: qualifier!, timestamp: pending.timestamp, value, labels: pending.labels });
      pending = undefined;
      if (c.commitRow) {
        rows.push({ key: key!, cells });
        info.rows.push(key!);
        lastKey = key;
        key = undefined;
        cells = [];
        family = undefined;
        qualifier = undefined;
      }
    }
    if (key !== undefined || pending !== undefined) throw new Error(`message ${m}: a row continues into the next message`);
    messages.push(info);
  }
  return { rows, messages };
}
