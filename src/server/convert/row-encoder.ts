import type { Cell, Row } from '../../model/cell.js';
import { fieldSize, int64Size, utf8Length, writeFieldHeader, writeInt64, writeLatin1, writeStringField } from './wire.js';

/**
 * Hand-written serializer of google.bigtable.v2.ReadModifyWriteRowResponse
 * (a hot unary response: every increment returns it), without protobuf
 * objects. Plugged in as the `responseSerialize` of ReadModifyWriteRow.
 * Fields at their default value (zero timestamp, empty value or qualifier)
 * are not sent, as proto3 encoders do.
 *
 *   ReadModifyWriteRowResponse := row(1) Row
 *   Row    := key(1) bytes | families(2) Family*
 *   Family := name(1) string | columns(2) Column*
 *   Column := qualifier(1) bytes | cells(2) Cell*
 *   Cell   := timestamp_micros(1) int64 | value(2) bytes | labels(3) string*
 *
 * Cells arrive in output order (grouped by family, then qualifier), as the
 * read-modify-write path returns them.
 */
export function encodeReadModifyWriteRowResponse(response: { readonly row: Row }): Buffer {
  const { row } = response;
  const rowBody = rowBodySize(row);
  const buf = Buffer.allocUnsafe(fieldSize(rowBody));
  let pos = writeFieldHeader(buf, 0, 0x0a, rowBody);
  pos = bytesField(buf, pos, 0x0a, row.key);
  forEachGroup(row.cells, (f, fEnd) => {
    const cells = row.cells;
    pos = writeFieldHeader(buf, pos, 0x12, familyBodySize(cells, f, fEnd));
    const name = cells[f]!.family;
    if (name.length > 0) pos = writeStringField(buf, pos, 0x0a, name, utf8Length(name));
    forEachColumn(cells, f, fEnd, (q, qEnd) => {
      pos = writeFieldHeader(buf, pos, 0x12, columnBodySize(cells, q, qEnd));
      pos = bytesField(buf, pos, 0x0a, cells[q]!.qualifier);
      for (let i = q; i < qEnd; i++) {
        const c = cells[i]!;
        pos = writeFieldHeader(buf, pos, 0x12, cellBodySize(c));
        if (c.timestamp !== 0) {
          buf[pos++] = 0x08;
          pos = writeInt64(buf, pos, c.timestamp);
        }
        if (c.value.byteLength > 0) {
          pos = writeFieldHeader(buf, pos, 0x12, c.value.byteLength);
          buf.set(c.value, pos);
          pos += c.value.byteLength;
        }
        for (const l of c.labels) pos = writeStringField(buf, pos, 0x1a, l, utf8Length(l));
      }
    });
  });
  if (pos !== buf.length) throw new Error(`ReadModifyWriteRowResponse: wrote ${pos} bytes, sized ${buf.length}`);
  return buf;
}

/** A non-empty Latin-1 byte string as a bytes field (empty: not sent). */
function bytesField(buf: Buffer, pos: number, key: number, s: string): number {
  if (s.length === 0) return pos;
  return writeLatin1(buf, writeFieldHeader(buf, pos, key, s.length), s);
}

function optionalFieldSize(n: number): number {
  return n === 0 ? 0 : fieldSize(n);
}

function cellBodySize(c: Cell): number {
  let n = c.timestamp === 0 ? 0 : 1 + int64Size(c.timestamp);
  n += optionalFieldSize(c.value.byteLength);
  for (const l of c.labels) n += fieldSize(utf8Length(l));
  return n;
}

function columnBodySize(cells: readonly Cell[], from: number, to: number): number {
  let n = optionalFieldSize(cells[from]!.qualifier.length);
  for (let i = from; i < to; i++) n += fieldSize(cellBodySize(cells[i]!));
  return n;
}

function familyBodySize(cells: readonly Cell[], from: number, to: number): number {
  let n = optionalFieldSize(utf8Length(cells[from]!.family));
  forEachColumn(cells, from, to, (q, qEnd) => (n += fieldSize(columnBodySize(cells, q, qEnd))));
  return n;
}

function rowBodySize(row: Row): number {
  let n = optionalFieldSize(row.key.length);
  forEachGroup(row.cells, (f, fEnd) => (n += fieldSize(familyBodySize(row.cells, f, fEnd))));
  return n;
}

/** Calls `f(from, to)` for each run of cells of one family. */
function forEachGroup(cells: readonly Cell[], f: (from: number, to: number) => void): void {
  let i = 0;
  while (i < cells.length) {
    let j = i + 1;
    while (j < cells.length && cells[j]!.family === cells[i]!.family) j++;
    f(i, j);
    i = j;
  }
}

/** Calls `f(from, to)` for each run of cells of one qualifier within [from, to). */
function forEachColumn(cells: readonly Cell[], from: number, to: number, f: (from: number, to: number) => void): void {
  let i = from;
  while (i < to) {
    let j = i + 1;
    while (j < to && cells[j]!.qualifier === cells[i]!.qualifier) j++;
    f(i, j);
    i = j;
  }
}
