import fc from 'fast-check';
import * as nodeFs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileSystem } from '../fs/file-system.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import { createBlockCache } from '../cache/block-cache.js';
import { entriesArb, keyArb, optionsArb } from './testing/arbitraries.js';
import { writeTable, type Entry } from './testing/tables.js';
import { openSSTable } from './sstable-reader.js';
import type { SSTableReader } from './sstable-reader.js';

const tmp = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'sstable-test-'));
afterAll(() => nodeFs.rmSync(tmp, { recursive: true, force: true }));

const filesystems: [string, () => FileSystem, number][] = [
  ['memory', () => new MemoryFileSystem(), 150],
  ['disk', () => createNodeFileSystem(tmp), 40],
];

function scanForward(r: SSTableReader): [string, Buffer][] {
  const it = r.newIterator();
  const out: [string, Buffer][] = [];
  for (it.first(); it.valid; it.next()) out.push([it.key, it.value]);
  it.close();
  return out;
}

function scanBackward(r: SSTableReader): [string, Buffer][] {
  const it = r.newIterator();
  const out: [string, Buffer][] = [];
  for (it.last(); it.valid; it.prev()) out.push([it.key, it.value]);
  it.close();
  return out;
}

/** Compares entry lists cheaply (deep equality over big buffers is slow): keys exactly, values by Buffer.equals. */
function expectSame(got: readonly (readonly [string, Uint8Array])[], want: readonly Entry[]): void {
  expect(got.map(([k]) => k)).toEqual(want.map(([k]) => k));
  const differing = got.filter(([, v], i) => !Buffer.from(v).equals(want[i]![1])).map(([k]) => k);
  expect(differing).toEqual([]);
}

function expectValue(got: Buffer | undefined, want: Uint8Array | undefined): void {
  if (want === undefined) expect(got).toBeUndefined();
  else expect(got?.equals(want)).toBe(true);
}

describe.each(filesystems)('SSTable round trip on the %s filesystem', (_name, makeFs, runs) => {
  let n = 0;
  it('reads back exactly what was written, by get and by iteration both ways', async () => {
    await fc.assert(
      fc.asyncProperty(
        entriesArb(),
        optionsArb,
        fc.array(keyArb, { maxLength: 30 }),
        fc.boolean(),
        async (entries, options, probes, cached) => {
          const fs = makeFs();
          const path = `t${n++}.sst`;
          const info = await writeTable(fs, path, entries, options);
          expect(info.size).toBe(fs.size(path));
          expect(info.entries).toBe(entries.length);
          expect(info.smallestKey).toBe(entries[0]?.[0]);
          expect(info.largestKey).toBe(entries.at(-1)?.[0]);
          expect(info.rawKeyBytes).toBe(entries.reduce((s, [k]) => s + k.length, 0));
          expect(info.rawValueBytes).toBe(entries.reduce((s, [, v]) => s + v.byteLength, 0));
          expect(info.maxEntryBytes).toBe(entries.reduce((m, [k, v]) => Math.max(m, k.length + v.byteLength), 0));

          const cache = cached ? createBlockCache(1 << 20) : undefined;
          const r = openSSTable(fs, path, { id: n, ...(cache ? { cache } : {}) });
          try {
            expect(r.info).toEqual(info);
            expectSame(scanForward(r), entries);
            expectSame(scanBackward(r), [...entries].reverse());
            const byKey = new Map(entries);
            for (const [k, v] of entries) {
              expect(r.mayContain(k)).toBe(true);
              expectValue(r.get(k), v);
            }
            for (const k of probes) {
              expectValue(r.get(k), byKey.get(k));
            }
          } finally {
            r.close();
            fs.remove(path);
          }
        },
      ),
      { numRuns: runs },
    );
  });
});

describe('SSTable shapes', () => {
  it('an empty table opens, iterates nothing and answers every get with undefined', async () => {
    const fs = new MemoryFileSystem();
    const info = await writeTable(fs, 'e.sst', []);
    expect(info).toMatchObject({ entries: 0, smallestKey: undefined, largestKey: undefined, dataBlocks: 0 });
    const r = openSSTable(fs, 'e.sst', { id: 1 });
    const it = r.newIterator();
    it.first();
    expect(it.valid).toBe(false);
    it.last();
    expect(it.valid).toBe(false);
    it.seekGE('a');
    expect(it.valid).toBe(false);
    it.seekLT('a');
    expect(it.valid).toBe(false);
    it.close();
    expect(r.get('a')).toBeUndefined();
    expect(r.approximateOffsetOf('a')).toBe(0);
    expect(r.sampleKeys(1)).toEqual([]);
    r.close();
  });

  it('a one-entry table holds its entry, including an empty key and an empty value', async () => {
    const fs = new MemoryFileSystem();
    await writeTable(fs, 'one.sst', [['', new Uint8Array()]]);
    const r = openSSTable(fs, 'one.sst', { id: 1 });
    expect(r.get('')).toEqual(Buffer.alloc(0));
    expect(r.get('\x00')).toBeUndefined();
    expect(scanBackward(r)).toEqual([['', Buffer.alloc(0)]]);
    r.close();
  });

  it('puts an entry larger than the block size in a block of its own', async () => {
    const fs = new MemoryFileSystem();
    const big = Buffer.alloc(10_000, 7);
    const info = await writeTable(
      fs,
      'big.sst',
      [
        ['a', Buffer.from('x')],
        ['b', Buffer.from('y')],
        ['c', big],
        ['d', Buffer.from('z')],
      ],
      { blockSize: 1024, compression: 'none' },
    );
    expect(info.dataBlocks).toBe(3);
    const r = openSSTable(fs, 'big.sst', { id: 1 });
    expect(r.get('c')?.equals(big)).toBe(true);
    // The big block spans [offset of c, offset of d): at least the value.
    expect(r.approximateOffsetOf('d') - r.approximateOffsetOf('c')).toBeGreaterThan(10_000);
    expect(r.approximateOffsetOf('c')).toBe(r.approximateOffsetOf('b\x01'));
    r.close();
  });

  it('an iterator with fillCache false uses cached blocks but does not add the ones it reads', async () => {
    const fs = new MemoryFileSystem();
    const entries = Array.from({ length: 400 }, (_, i): Entry => [`k${String(i).padStart(4, '0')}`, Buffer.alloc(100, i & 0xff)]);
    await writeTable(fs, 't.sst', entries, { blockSize: 1024 });
    const cache = createBlockCache(1 << 20);
    const r = openSSTable(fs, 't.sst', { id: 1, cache });
    const readAll = (fillCache?: boolean): string[] => {
      const it = r.newIterator(fillCache === undefined ? {} : { fillCache });
      const keys: string[] = [];
      for (it.first(); it.valid; it.next()) keys.push(it.key);
      it.close();
      return keys;
    };
    expect(readAll(false)).toEqual(entries.map(([k]) => k));
    expect(cache.stats().entries).toBe(0);
    expect(cache.stats().misses).toBeGreaterThan(10);
    expect(r.get('k0200')?.equals(Buffer.alloc(100, 200))).toBe(true); // a read caches its block
    expect(cache.stats().entries).toBe(1);
    const hits = cache.stats().hits;
    expect(readAll(false)).toHaveLength(400);
    expect(cache.stats().hits).toBe(hits + 1);
    expect(cache.stats().entries).toBe(1);
    readAll();
    expect(cache.stats().entries).toBeGreaterThan(10);
    r.close();
  });

  it('handles a value of 64 MiB', async () => {
    const fs = new MemoryFileSystem();
    const huge = Buffer.alloc(64 << 20, 'row fragment ');
    huge.writeUInt32LE(0xdeadbeef, huge.length - 4);
    await writeTable(fs, 'huge.sst', [
      ['a', Buffer.from('1')],
      ['m', huge],
      ['z', Buffer.from('2')],
    ]);
    const r = openSSTable(fs, 'huge.sst', { id: 1, cache: createBlockCache(16 << 20) });
    expect(r.get('m')?.equals(huge)).toBe(true);
    expect(r.get('z')).toEqual(Buffer.from('2'));
    r.close();
  });

  it('compresses blocks that shrink and leaves incompressible ones raw', async () => {
    const fs = new MemoryFileSystem();
    const text = Array.from({ length: 500 }, (_, i): Entry => [`k${String(i).padStart(4, '0')}`, Buffer.alloc(200, 'abc')]);
    const lz = await writeTable(fs, 'lz.sst', text, { compression: 'lz4' });
    const raw = await writeTable(fs, 'raw.sst', text, { compression: 'none' });
    expect(lz.size).toBeLessThan(raw.size / 4);
    let seed = 1;
    const noise = Array.from({ length: 200 }, (_, i): Entry => [
      `k${String(i).padStart(4, '0')}`,
      Buffer.from(Array.from({ length: 300 }, () => (seed = (seed * 48271) % 2147483647) & 0xff)),
    ]);
    const a = await writeTable(fs, 'n1.sst', noise, { compression: 'lz4', createdAtMillis: 1 });
    const b = await writeTable(fs, 'n2.sst', noise, { compression: 'none', createdAtMillis: 1 });
    // Same blocks, stored raw; only the "compression" property differs ("lz4" vs "none").
    expect(a.size).toBe(b.size - 1);
  });

  it('records the creation facts', async () => {
    const fs = new MemoryFileSystem();
    await writeTable(fs, 'c.sst', [['k', Buffer.from('v')]], { createdAtMillis: 1_700_000_000_123, creator: 'tabletop compaction L1 ✓' });
    const r = openSSTable(fs, 'c.sst', { id: 1 });
    expect(r.info).toMatchObject({
      createdAtMillis: 1_700_000_000_123,
      creator: 'tabletop compaction L1 ✓',
      formatVersion: 1,
      compression: 'lz4',
    });
    r.close();
  });
});
