/**
 * Micro-benchmarks (not tests): `npx vitest bench bench/micro`.
 * Each bench runs a batch of operations; divide the reported mean time by the
 * batch size for the cost of one.
 */
import { bench, describe } from 'vitest';
import { createBlockCache } from '../../src/storage/cache/block-cache.js';
import { MemoryFileSystem } from '../../src/storage/fs/memory-fs.js';
import { createSSTableWriter, openSSTable } from '../../src/storage/sstable/index.js';
import { seededRandom } from '../../src/testing/random.js';

const N = 100_000;
const BATCH = 1000;
const keyOf = (i: number): string => `user#${String(i).padStart(8, '0')}`;
const value = Buffer.alloc(100, 'value bytes ');

const fs = new MemoryFileSystem();
const w = createSSTableWriter(fs.create('bench.sst'));
for (let i = 0; i < N; i++) w.add(keyOf(i), value);
await w.finish();
const cache = createBlockCache(1 << 30);
const table = openSSTable(fs, 'bench.sst', { id: 1, cache });
const rand = seededRandom(11);
const present = Array.from({ length: BATCH }, () => keyOf(Math.floor(rand() * N)));
const absent = present.map((k) => k + 'x');
for (const k of present) table.get(k);
const it = table.newIterator();
for (it.first(); it.valid; it.next()); // warm the cache with every block

describe(`SSTable of ${N} entries (16-byte keys, 100-byte values), blocks cached`, () => {
  bench(`get, present key (x${BATCH})`, () => {
    for (const k of present) if (table.get(k) === undefined) throw new Error('missing');
  });
  bench(`get, absent key (x${BATCH})`, () => {
    for (const k of absent) table.get(k);
  });
  bench(`seekGE (x${BATCH})`, () => {
    for (const k of present) it.seekGE(k);
  });
  bench(`forward scan, key + value per entry (x${N})`, () => {
    let n = 0;
    for (it.first(); it.valid; it.next()) n += it.key.length + it.value.length;
    if (n === 0) throw new Error('empty');
  });
  bench(`forward scan, no key/value access (x${N})`, () => {
    for (it.first(); it.valid; it.next());
  });
  bench(`reverse scan, no key/value access (x${N})`, () => {
    for (it.last(); it.valid; it.prev());
  });
  bench(`reverse scan, key + value per entry (x${N})`, () => {
    let n = 0;
    for (it.last(); it.valid; it.prev()) n += it.key.length + it.value.length;
    if (n === 0) throw new Error('empty');
  });
});

describe('SSTable writer', () => {
  bench(`add ${N} entries and finish`, async () => {
    const out = new MemoryFileSystem();
    const wr = createSSTableWriter(out.create('w.sst'));
    for (let i = 0; i < N; i++) wr.add(keyOf(i), value);
    await wr.finish();
  });
});
