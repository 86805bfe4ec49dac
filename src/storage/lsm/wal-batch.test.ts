import { describe, expect, it } from 'vitest';
import { TabletopError } from '../../model/errors.js';
import { RECYCLABLE_HEADER_BYTES } from '../wal/log-format.js';
import { decodeBatch, decodeLogged, encodeBatch, encodeDrop, type LoggedDrop } from './wal-batch.js';

const payloadOf = (record: Buffer): Buffer => record.subarray(RECYCLABLE_HEADER_BYTES);

describe('commit-log payloads', () => {
  const drops: LoggedDrop[] = [
    { kind: 'range', storeId: 't1.a', drop: { start: 'k\u0000\u00ff', end: 'l', seq: 2 ** 40 + 3 } },
    { kind: 'range', storeId: 't1.a', drop: { start: '', end: null, seq: 7 } },
    { kind: 'family', storeId: 's', family: 'cf', seq: 1 },
  ];

  it('round-trips drops and tells them from batches', () => {
    for (const d of drops) expect(decodeLogged(payloadOf(encodeDrop(d)), 'x')).toEqual(d);
    const batch = encodeBatch('s', [{ key: 'k', ops: [{ kind: 'deleteRow' }] }], 5);
    const decoded = decodeLogged(batch.payload, 'x');
    expect('kind' in decoded).toBe(false);
    expect(decoded).toMatchObject({ storeId: 's', rows: [{ key: 'k', firstSeq: 5, lastSeq: 5 }] });
  });

  it('a reader that knows only batches refuses a drop (DataLoss) instead of skipping it', () => {
    for (const d of drops) {
      expect(() => decodeBatch(payloadOf(encodeDrop(d)), 'log 1 record 0')).toThrow(TabletopError);
      expect(() => decodeBatch(payloadOf(encodeDrop(d)), 'log 1 record 0')).toThrow(/trailing bytes/);
    }
  });

  it('a damaged drop is DataLoss, never a different drop', () => {
    const p = payloadOf(encodeDrop(drops[0]!));
    for (const cut of [3, 5, p.length - 1]) expect(() => decodeLogged(p.subarray(0, cut), 'w')).toThrow(/malformed drop/);
    const badKind = Buffer.from(p);
    badKind[2] = 9;
    expect(() => decodeLogged(badKind, 'w')).toThrow(/kind 9/);
    expect(() => decodeLogged(Buffer.concat([p, Buffer.from([0])]), 'w')).toThrow(/trailing bytes/);
  });
});
