import { describe, expect, it } from 'vitest';
import { RecordArena } from './record-arena.js';
import { decodeBatch, encodeBatch, fragmentOf } from './wal-batch.js';

const put = (key: string, value: Buffer) => ({
  key,
  ops: [{ kind: 'put' as const, family: 'cf', qualifier: 'q', timestamp: 1000, value }],
});

describe('RecordArena', () => {
  it('places small records side by side in memory of their own, not in buffers shared with other allocations', () => {
    const arena = new RecordArena();
    const records = Array.from({ length: 500 }, (_, i) => encodeBatch('s', [put(`k${i}`, Buffer.from(`v${i}`))], i + 1, arena).record);
    // Consecutive records of a chunk are adjacent: nothing else lives between them.
    let adjacent = 0;
    for (let i = 1; i < records.length; i++) {
      const a = records[i - 1]!;
      const b = records[i]!;
      if (a.buffer === b.buffer && a.byteOffset + a.byteLength === b.byteOffset) adjacent++;
    }
    expect(adjacent).toBeGreaterThan(490);
    // A Buffer.from of the same size would be a slice of Node's shared pool; the arena's chunks are not.
    const pool = Buffer.from('x').buffer;
    expect(records.every((r) => r.buffer !== pool)).toBe(true);
    // Chunks double from 4 KiB: what is allocated stays within twice what is used, plus the first chunk.
    const used = records.reduce((n, r) => n + r.byteLength, 0);
    expect(arena.allocatedBytes).toBeLessThanOrEqual(2 * used + 4096);
    // And the records still decode to what was written.
    const decoded = decodeBatch(records[123]!.subarray(12), 'test');
    expect(decoded.rows[0]?.key).toBe('k123');
  });

  it('gives a record larger than a quarter of a chunk an allocation of its own', () => {
    const arena = new RecordArena();
    const big = encodeBatch('s', [put('big', Buffer.alloc(300 * 1024, 7))], 1, arena);
    expect(arena.allocatedBytes).toBe(0);
    expect(fragmentOf(big, big.rows[0]!).byteLength).toBeGreaterThan(300 * 1024);
  });

  it('hands out again the bytes of a reservation that was not used', () => {
    const arena = new RecordArena();
    const a = arena.reserve(100);
    arena.commit(a, 40);
    const b = arena.reserve(100);
    expect(b.byteOffset).toBe(a.byteOffset + 40);
    arena.commit(Buffer.alloc(100), 100); // the record outgrew its reservation and moved
    const c = arena.reserve(10);
    expect(c.byteOffset).toBe(b.byteOffset);
  });
});
