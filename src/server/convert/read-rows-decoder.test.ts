import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Random } from '../../testing/random.js';
import { serviceDefinition } from '../protos.js';
import type { PReadRowsRequest } from './proto-types.js';
import { decodeReadRowsRequest, decodeRowSet } from './read-rows-decoder.js';
import { rowSetFromProto } from './row-set.js';

const ReadRows = serviceDefinition('data')['ReadRows']!;
const encode = (req: object): Buffer => ReadRows.requestSerialize(req);
const key = (r: Random): Buffer => Buffer.from(Array.from({ length: r.int(0, 6) }, () => r.int(0, 255)));

describe('ReadRowsRequest decoder', () => {
  it('gives what the loader and rowSetFromProto give, on random requests', async () => {
    const r = new Random(7);
    for (let trial = 0; trial < 300; trial++) {
      const rowRanges = Array.from({ length: r.int(0, 5) }, () => {
        const range: Record<string, Buffer> = {};
        const s = r.int(0, 2);
        if (s === 1) range['startKeyClosed'] = key(r);
        if (s === 2) range['startKeyOpen'] = key(r);
        const e = r.int(0, 2);
        if (e === 1) range['endKeyOpen'] = key(r);
        if (e === 2) range['endKeyClosed'] = key(r);
        return range;
      });
      const req = {
        tableName: 'projects/p/instances/i/tables/t',
        ...(r.int(0, 3) === 0 ? {} : { rows: { rowKeys: Array.from({ length: r.int(0, 4) }, () => key(r)), rowRanges } }),
        ...(r.int(0, 1) === 0 ? {} : { rowsLimit: String(r.int(1, 100)), reversed: true }),
        ...(r.int(0, 1) === 0 ? {} : { filter: { familyNameRegexFilter: 'cf' } }),
      };
      const bytes = encode(req);
      const expected = ReadRows.requestDeserialize(bytes) as PReadRowsRequest;
      // Small requests are decoded whole (their rows too, unused); large ones without their rows.
      const { rowSetBytes, rows: _unused, ...rest } = decodeReadRowsRequest(bytes);
      const { rows, ...expectedRest } = expected;
      expect(rest).toEqual(expectedRest);
      if (rows == null) expect(rowSetBytes).toBeUndefined();
      else expect(await decodeRowSet(rowSetBytes!)).toEqual(rowSetFromProto(rows));
    }
  });

  it('merges a row set given twice, and takes the last of each oneof, as protobuf does', async () => {
    const a = encode({ rows: { rowKeys: [Buffer.from('a')], rowRanges: [{ startKeyClosed: Buffer.from('b') }] } });
    const b = encode({ rows: { rowKeys: [Buffer.from('c')] } });
    // One range with start_key_closed "x", then start_key_open "y"; end_key_closed "z", then an empty end_key_open.
    const range = Buffer.from([0x0a, 1, 0x78, 0x12, 1, 0x79, 0x22, 1, 0x7a, 0x1a, 0]);
    const c = Buffer.concat([Buffer.from([0x12, range.length + 2, 0x12, range.length]), range]);
    const decoded = decodeReadRowsRequest(Buffer.concat([a, b, c]));
    expect(await decodeRowSet(decoded.rowSetBytes!)).toEqual({
      keys: ['a', 'c'],
      ranges: [
        { start: { kind: 'closed', key: 'b' }, end: { kind: 'unbounded' } },
        { start: { kind: 'open', key: 'y' }, end: { kind: 'unbounded' } },
      ],
    });
  });

  it('rejects malformed row sets with INVALID_ARGUMENT, small and large', async () => {
    // rows holding a range whose inner length runs past the range.
    const bad = Buffer.from([0x12, 5, 0x12, 3, 0x0a, 9, 0x61]);
    expect(() => decodeRowSet([bad.subarray(2)])).toThrow(expect.objectContaining({ code: 'InvalidArgument' }));
    // The same damage at the end of 100,000 good ranges: found by the sliced decoder.
    const good = encode({ rows: { rowRanges: Array.from({ length: 100_000 }, () => ({ startKeyClosed: Buffer.from('k') })) } });
    const decoded = decodeReadRowsRequest(Buffer.concat([good, bad]));
    await expect(Promise.resolve().then(() => decodeRowSet(decoded.rowSetBytes!))).rejects.toMatchObject({ code: 'InvalidArgument' });
    // A length past the end of the message fails at once.
    expect(() => decodeReadRowsRequest(Buffer.from([0x12, 50, 0x0a]))).toThrow();
  });

  it('decodes a million ranges in slices that let other work run', async () => {
    const rowRanges = Array.from({ length: 1_000_000 }, (_, i) => ({
      startKeyClosed: Buffer.from(`r${String(i).padStart(8, '0')}`),
      endKeyOpen: Buffer.from(`r${String(i).padStart(8, '0')}~`),
    }));
    const decoded = decodeReadRowsRequest(encode({ tableName: 't', rows: { rowRanges } }));
    let ticks = 0;
    let done = false;
    const ticking = (async () => {
      while (!done) {
        ticks++;
        await yieldToLoop();
      }
    })();
    const set = await decodeRowSet(decoded.rowSetBytes!);
    done = true;
    await ticking;
    expect(set.ranges.length).toBe(1_000_000);
    expect(set.ranges[999_999]).toEqual({ start: { kind: 'closed', key: 'r00999999' }, end: { kind: 'open', key: 'r00999999~' } });
    expect(ticks).toBeGreaterThan(2);
  }, 60_000);
});
