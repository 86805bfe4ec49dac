import { describe, expect, it } from 'vitest';
import { EntryBatch, readEntryBatch } from './protocol.js';

function fill(batch: EntryBatch, valueBytes: number, from: number): number {
  let i = from;
  while (!batch.full) batch.add(`key${i++}`, Buffer.alloc(valueBytes, i % 256));
  return i;
}

describe('EntryBatch', () => {
  it('fills a batch past its target without growing, and fills a handed-back buffer again', () => {
    const batch = new EntryBatch(4096);
    const next = fill(batch, 1000, 0);
    const first = batch.take();
    expect(first.length).toBeGreaterThanOrEqual(4096);
    const entries: [string, number][] = [];
    readEntryBatch(first.buf, first.length, (key, value) => entries.push([key, value.byteLength]));
    expect(entries).toEqual(Array.from({ length: next }, (_, i) => [`key${i}`, 1000]));
    // The buffer that passed its target is the batch's own, not a grown copy: handed back, the next batch reuses it.
    batch.reuse(first.buf);
    fill(batch, 1000, next);
    batch.take();
    fill(batch, 1000, 2 * next);
    const third = batch.take();
    expect(third.buf).toBe(first.buf);
  });

  it('gives an entry larger than the room a buffer of its size, intact', () => {
    const batch = new EntryBatch(4096);
    batch.add('small', Buffer.from('x'));
    const big = Buffer.alloc(200 * 1024, 7);
    batch.add('big', big);
    const { buf, length } = batch.take();
    const seen: [string, Buffer][] = [];
    readEntryBatch(buf, length, (key, value) => seen.push([key, Buffer.from(value)]));
    expect(seen.map(([k]) => k)).toEqual(['small', 'big']);
    expect(seen[1]![1].equals(big)).toBe(true);
  });
});
