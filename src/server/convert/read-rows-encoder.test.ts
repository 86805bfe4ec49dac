import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cell, Row } from '../../model/cell.js';
import { mergeChunks, type DecodedResponse } from '../testing/chunk-merger.js';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { type ReadRowsFrame, type ReadRowsStats, encodeReadRowsResponse, rowSize } from './read-rows-encoder.js';

const readRows = loaderMethod(DATA, 'ReadRows');
const serialize = (o: object): Buffer => readRows.responseSerialize(o);
const deserialize = (b: Buffer): DecodedResponse => readRows.responseDeserialize(b) as DecodedResponse;

/** The chunk objects the rules prescribe, built independently of the encoder (no sizes, no bytes). */
function referenceChunks(rows: readonly Row[], chunk: number): object[] {
  const out: object[] = [];
  for (const row of rows) {
    let prev: Cell | undefined;
    row.cells.forEach((c, i) => {
      const familyChanged = prev === undefined || prev.family !== c.family;
      const qualifierChanged = familyChanged || prev!.qualifier !== c.qualifier;
      const total = c.value.length;
      const pieces = total > chunk ? Math.ceil(total / chunk) : 1;
      for (let p = 0; p < pieces; p++) {
        const o: Record<string, unknown> = {};
        if (i === 0 && p === 0) o['rowKey'] = Buffer.from(row.key, 'latin1');
        if (p === 0 && familyChanged) o['familyName'] = { value: c.family };
        if (p === 0 && qualifierChanged) o['qualifier'] = c.qualifier === '' ? {} : { value: Buffer.from(c.qualifier, 'latin1') };
        if (p === 0 && c.timestamp !== 0) o['timestampMicros'] = String(c.timestamp);
        if (p === 0 && c.labels.length > 0) o['labels'] = [...c.labels];
        const piece = c.value.subarray(p * chunk, Math.min(total, (p + 1) * chunk));
        if (piece.length > 0) o['value'] = Buffer.from(piece);
        if (pieces > 1 && p < pieces - 1) o['valueSize'] = total;
        if (i === row.cells.length - 1 && p === pieces - 1) o['commitRow'] = true;
        out.push(o);
      }
      prev = c;
    });
  }
  return out;
}

function referenceStats(s: ReadRowsStats): object {
  const counts: Record<string, string> = {};
  if (s.rowsSeen) counts['rowsSeenCount'] = String(s.rowsSeen);
  if (s.rowsReturned) counts['rowsReturnedCount'] = String(s.rowsReturned);
  if (s.cellsSeen) counts['cellsSeenCount'] = String(s.cellsSeen);
  if (s.cellsReturned) counts['cellsReturnedCount'] = String(s.cellsReturned);
  const micros = Math.round(s.latencyMicros);
  const seconds = Math.floor(micros / 1e6);
  const nanos = (micros - seconds * 1e6) * 1000;
  const latency: Record<string, unknown> = {};
  if (seconds) latency['seconds'] = String(seconds);
  if (nanos) latency['nanos'] = nanos;
  return { fullReadStatsView: { readIterationStats: counts, requestLatencyStats: { frontendServerLatency: latency } } };
}

function reference(frame: ReadRowsFrame, chunk: number): Buffer {
  const o: Record<string, unknown> = {};
  const chunks = referenceChunks(frame.rows, chunk);
  if (chunks.length > 0) o['chunks'] = chunks;
  if (frame.lastScannedRowKey !== undefined) o['lastScannedRowKey'] = Buffer.from(frame.lastScannedRowKey, 'latin1');
  if (frame.stats !== undefined) o['requestStats'] = referenceStats(frame.stats);
  return serialize(o);
}

const cell = (family: string, qualifier: string, timestamp: number, value: string | Uint8Array, labels: string[] = []): Cell => ({
  family,
  qualifier,
  timestamp,
  value: typeof value === 'string' ? Buffer.from(value) : value,
  labels,
});

describe('encodeReadRowsResponse', () => {
  it('encodes the worked example of the grammar comment byte for byte', () => {
    const buf = encodeReadRowsResponse({ rows: [{ key: 'r1', cells: [cell('f', 'q', 1000, 'v')] }] });
    expect(buf.toString('hex')).toBe('0a160a0272311203' + '0a0166' + '1a030a0171' + '20e807' + '320176' + '4801');
  });

  it('matches protobufjs for rows with several families, columns, versions and labels', () => {
    const rows: Row[] = [
      {
        key: 'row\x00\xff',
        cells: [
          cell('b', 'q1', 3000, 'x', ['lab']),
          cell('b', 'q1', 2000, ''),
          cell('b', 'q2', 1000, 'y'),
          cell('a', '', 0, 'z', ['l1', 'l2']),
          cell('a', '\x00\xff', 5000, 'w'),
        ],
      },
      { key: 'row2', cells: [cell('a', 'q', 7000, 'v')] },
    ];
    const frame: ReadRowsFrame = { rows };
    expect(encodeReadRowsResponse(frame).equals(reference(frame, 1 << 20))).toBe(true);
    const merged = mergeChunks([deserialize(encodeReadRowsResponse(frame))]);
    expect(merged.rows).toEqual(rows.map((r) => ({ key: r.key, cells: r.cells.map((c) => ({ ...c, value: Buffer.from(c.value) })) })));
  });

  it('keeps an empty qualifier present (an empty BytesValue) on the first chunk and on a family change', () => {
    const frame: ReadRowsFrame = { rows: [{ key: 'k', cells: [cell('a', '', 1000, 'v'), cell('b', '', 1000, 'w')] }] };
    const decoded = deserialize(encodeReadRowsResponse(frame));
    expect(decoded.chunks).toHaveLength(2);
    expect(decoded.chunks![0]!.qualifier).toEqual({});
    expect(decoded.chunks![1]!.familyName).toEqual({ value: 'b' });
    expect(decoded.chunks![1]!.qualifier).toEqual({});
  });

  it('splits a 5 MiB value into 1 MiB pieces with value_size on all but the last, in one message', () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const frame: ReadRowsFrame = { rows: [{ key: 'big', cells: [cell('f', 'q', 1000, big), cell('f', 'r', 1000, 'after')] }] };
    const buf = encodeReadRowsResponse(frame);
    expect(buf.equals(reference(frame, 1 << 20))).toBe(true);
    const decoded = deserialize(buf);
    const chunks = decoded.chunks!;
    expect(chunks).toHaveLength(7);
    expect(chunks.slice(0, 5).map((c) => c.valueSize)).toEqual(Array(5).fill(big.length));
    expect(chunks[5]!.valueSize).toBeUndefined();
    expect(chunks[5]!.value!.length).toBe(17);
    expect(chunks[0]!.value!.length).toBe(1024 * 1024);
    expect(chunks[6]!.commitRow).toBe(true);
    expect(chunks.slice(0, 6).every((c) => c.commitRow === undefined)).toBe(true);
    const merged = mergeChunks([decoded]);
    expect(Buffer.from(merged.rows[0]!.cells[0]!.value).equals(big)).toBe(true);
  });

  it('puts commit_row on the last piece of a split value that ends the row', () => {
    const frame: ReadRowsFrame = { rows: [{ key: 'k', cells: [cell('f', 'q', 1000, Buffer.alloc(10, 1))] }] };
    const chunks = deserialize(encodeReadRowsResponse(frame, 4)).chunks!;
    expect(chunks.map((c) => [c.value?.length, c.valueSize, c.commitRow])).toEqual([
      [4, 10, undefined],
      [4, 10, undefined],
      [2, undefined, true],
    ]);
  });

  it('encodes a heartbeat and the request-stats frame like protobufjs', () => {
    const heartbeat: ReadRowsFrame = { rows: [], lastScannedRowKey: 'scanned\xff' };
    expect(encodeReadRowsResponse(heartbeat).equals(reference(heartbeat, 1 << 20))).toBe(true);
    const stats: ReadRowsFrame = {
      rows: [],
      stats: { rowsSeen: 10, rowsReturned: 3, cellsSeen: 0, cellsReturned: 300000, latencyMicros: 2_500_123.4 },
    };
    expect(encodeReadRowsResponse(stats).equals(reference(stats, 1 << 20))).toBe(true);
    const empty: ReadRowsFrame = { rows: [], stats: { rowsSeen: 0, rowsReturned: 0, cellsSeen: 0, cellsReturned: 0, latencyMicros: 0 } };
    const decoded = deserialize(encodeReadRowsResponse(empty)) as {
      requestStats?: { fullReadStatsView?: { readIterationStats?: object } };
    };
    expect(decoded.requestStats?.fullReadStatsView?.readIterationStats).toEqual({});
  });

  it('reports the same size as it writes (rowSize)', () => {
    const row: Row = { key: 'k', cells: [cell('f', 'q', 123456789, Buffer.alloc(300)), cell('g', 'q', 1, 'x', ['a'])] };
    expect(encodeReadRowsResponse({ rows: [row] }).length).toBe(rowSize(row));
    expect(encodeReadRowsResponse({ rows: [row] }, 7).length).toBe(rowSize(row, 7));
  });

  it('matches protobufjs and round-trips for random rows (property)', () => {
    const byteString = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => Buffer.from(b).toString('latin1'));
    const cellArb = fc.record({
      family: fc.constantFrom('a', 'b', 'fam-1', 'z.z'),
      qualifier: byteString(6),
      timestamp: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 40 }), fc.constant(Number.MAX_SAFE_INTEGER)),
      value: fc.uint8Array({ maxLength: 40 }),
      labels: fc.array(fc.constantFrom('x', 'label-2'), { maxLength: 2 }),
    });
    const rowArb = fc.record({
      key: byteString(12).filter((k) => k.length > 0),
      cells: fc.array(cellArb, { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 5 }), fc.integer({ min: 1, max: 50 }), (raw, chunk) => {
        // Rows as the read path gives them: keys strictly ascending, cells ordered within a row.
        const byKey = new Map(raw.map((r) => [r.key, r]));
        const rows: Row[] = [...byKey.values()]
          .sort((a, b) => (a.key < b.key ? -1 : 1))
          .map((r) => ({
            key: r.key,
            cells: [...r.cells].sort((x, y) =>
              x.family < y.family
                ? -1
                : x.family > y.family
                  ? 1
                  : x.qualifier < y.qualifier
                    ? -1
                    : x.qualifier > y.qualifier
                      ? 1
                      : y.timestamp - x.timestamp,
            ),
          }));
        const buf = encodeReadRowsResponse({ rows }, chunk);
        expect(buf.equals(reference({ rows }, chunk))).toBe(true);
        const merged = mergeChunks([deserialize(buf)]);
        expect(
          merged.rows.map((r) => ({ key: r.key, cells: r.cells.map((c) => ({ ...c, value: Buffer.from(c.value).toString('hex') })) })),
        ).toEqual(rows.map((r) => ({ key: r.key, cells: r.cells.map((c) => ({ ...c, value: Buffer.from(c.value).toString('hex') })) })));
      }),
      { numRuns: 300 },
    );
  });
});
