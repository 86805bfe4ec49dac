import fc from 'fast-check';
import * as nodeFs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../../model/errors.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import { BlockCursor, checkBlockBody } from './block-cursor.js';
import { BlockType, encodeFooter, encodeTrailer, FOOTER_BYTES, TRAILER_BYTES } from './format.js';
import { openSSTable } from './sstable-reader.js';
import { writeTable, type Entry } from './testing/tables.js';
import { seededRandom } from '../../testing/random.js';

/** A small table with raw and lz4 data blocks, a filter, properties and an index. */
async function smallTable(): Promise<{ bytes: Buffer; entries: Entry[] }> {
  const rand = seededRandom(3);
  const entries: Entry[] = Array.from({ length: 24 }, (_, i) => [
    `row${String(i * 3).padStart(3, '0')}`,
    i % 3 === 0 ? Buffer.from(Array.from({ length: 40 }, () => Math.floor(rand() * 256))) : Buffer.alloc(60, `v${i}`),
  ]);
  const fs = new MemoryFileSystem();
  await writeTable(fs, 't.sst', entries, { blockSize: 300, restartInterval: 3, createdAtMillis: 1 });
  return { bytes: fs.readFile('t.sst'), entries };
}

type Outcome = 'dataloss' | 'intact';

/** Opens and reads every entry every way; DataLoss → 'dataloss', identical data → 'intact'; anything else fails the test. */
function readEverything(bytes: Buffer, entries: readonly Entry[]): Outcome {
  const fs = new MemoryFileSystem();
  fs.create('c.sst').append(bytes);
  let lost = false;
  const attempt = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (!isTabletopError(e, 'DataLoss')) throw e;
      expect(e.message).toMatch(/^sstable c\.sst: .*(offset|bytes)/);
      lost = true;
    }
  };
  attempt(() => {
    const r = openSSTable(fs, 'c.sst', { id: 1 });
    try {
      attempt(() => {
        const it = r.newIterator();
        const got: Entry[] = [];
        for (it.first(); it.valid; it.next()) got.push([it.key, Buffer.from(it.value)]);
        it.close();
        expect(got).toEqual(entries.map(([k, v]) => [k, Buffer.from(v)]));
      });
      attempt(() => {
        const it = r.newIterator();
        let n = entries.length;
        for (it.last(); it.valid; it.prev()) expect(it.key).toBe(entries[--n]![0]);
        expect(n).toBe(0);
        it.close();
      });
      for (const [k, v] of entries) attempt(() => expect(r.get(k)?.equals(v)).toBe(true));
    } finally {
      r.close();
    }
  });
  return lost ? 'dataloss' : 'intact';
}

describe('corruption is DataLoss, never a wrong answer', () => {
  it('reads the intact table', async () => {
    const { bytes, entries } = await smallTable();
    expect(readEverything(bytes, entries)).toBe('intact');
  });

  it('detects every flipped byte (every byte of the file is covered by a checksum or the magic)', async () => {
    const { bytes, entries } = await smallTable();
    const undetected: string[] = [];
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = Buffer.from(bytes);
        bad[i]! ^= mask;
        if (readEverything(bad, entries) !== 'dataloss') undetected.push(`byte ${i} ^ ${mask}`);
      }
    }
    expect(undetected).toEqual([]);
  });

  it('opening and then verifyBlocks find every flipped byte, with no read of the entries', async () => {
    const { bytes } = await smallTable();
    const verify = (b: Buffer): Outcome => {
      const fs = new MemoryFileSystem();
      fs.create('c.sst').append(b);
      try {
        const r = openSSTable(fs, 'c.sst', { id: 1 });
        try {
          const sizes = [...r.verifyBlocks()];
          expect(sizes).toHaveLength(r.info.dataBlocks);
          return 'intact';
        } finally {
          r.close();
        }
      } catch (e) {
        if (!isTabletopError(e, 'DataLoss')) throw e;
        expect(e.message).toMatch(/^sstable c\.sst: .*(offset|bytes|entries|key)/);
        return 'dataloss';
      }
    };
    expect(verify(bytes)).toBe('intact');
    const undetected: string[] = [];
    for (let i = 0; i < bytes.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bad = Buffer.from(bytes);
        bad[i]! ^= mask;
        if (verify(bad) !== 'dataloss') undetected.push(`byte ${i} ^ ${mask}`);
      }
    }
    expect(undetected).toEqual([]);
  });

  it('detects every truncation and trailing garbage at open', async () => {
    const { bytes } = await smallTable();
    const fs = new MemoryFileSystem();
    for (let n = 0; n < bytes.length; n++) {
      fs.create('c.sst').append(bytes.subarray(0, n));
      expect(() => openSSTable(fs, 'c.sst', { id: 1 }), `length ${n}`).toThrow(expect.objectContaining({ code: 'DataLoss' }));
    }
    fs.create('c.sst').append(Buffer.concat([bytes, Buffer.from('garbage')]));
    expect(() => openSSTable(fs, 'c.sst', { id: 1 })).toThrow(/bad magic/);
    fs.create('c.sst').append(bytes.subarray(0, 10));
    expect(() => openSSTable(fs, 'c.sst', { id: 1 })).toThrow(
      'sstable c.sst: file is 10 bytes, too short to hold the 64-byte footer (truncated?)',
    );
  });

  it('names the block, offset and size of a block that fails its checksum', async () => {
    const { bytes, entries } = await smallTable();
    const bad = Buffer.from(bytes);
    bad[3]! ^= 0x10;
    const fs = new MemoryFileSystem();
    fs.create('000012.sst').append(bad);
    const r = openSSTable(fs, '000012.sst', { id: 12 });
    expect(() => r.get(entries[0]![0])).toThrow(/^sstable 000012\.sst: data block at offset 0 \(size \d+\) fails its checksum$/);
    r.close();
  });

  it('refuses a newer format version with FailedPrecondition, not DataLoss', async () => {
    const { bytes } = await smallTable();
    const footer = bytes.subarray(bytes.length - FOOTER_BYTES);
    const handles = (p: number): { offset: number; size: number } => ({ offset: footer.readUInt32LE(p), size: footer.readUInt32LE(p + 8) });
    const newer = encodeFooter({ index: handles(0), properties: handles(16), filter: handles(32), version: 2 });
    const fs = new MemoryFileSystem();
    fs.create('n.sst').append(Buffer.concat([bytes.subarray(0, bytes.length - FOOTER_BYTES), newer]));
    expect(() => openSSTable(fs, 'n.sst', { id: 1 })).toThrow(
      expect.objectContaining({ code: 'FailedPrecondition', message: expect.stringMatching(/format version 2/) }),
    );
  });

  it('survives random files and random footers with DataLoss only', () => {
    const fs = new MemoryFileSystem();
    const handle = fc.record({ offset: fc.oneof(fc.nat(400), fc.maxSafeNat()), size: fc.oneof(fc.nat(400), fc.maxSafeNat()) });
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.option(fc.record({ index: handle, properties: handle, filter: handle, version: fc.constantFrom(0, 1) })),
        (body, footer) => {
          const bytes = footer === null ? Buffer.from(body) : Buffer.concat([body, encodeFooter(footer)]);
          fs.create('f.sst').append(bytes);
          try {
            openSSTable(fs, 'f.sst', { id: 1 }).close();
          } catch (e) {
            expect(isTabletopError(e, 'DataLoss')).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reports malformed contents under a valid checksum as DataLoss, never as a RangeError', async () => {
    const { bytes, entries } = await smallTable();
    // Data block 0 starts at offset 0; its trailer type is at `size`. Find its size from a clean open.
    const fs = new MemoryFileSystem();
    fs.create('t.sst').append(bytes);
    const r = openSSTable(fs, 't.sst', { id: 1 });
    const size = firstBlockSize(r);
    r.close();
    fc.assert(
      fc.property(fc.uint8Array({ minLength: size, maxLength: size }), fc.nat(size - 1), (garbage, keep) => {
        const bad = Buffer.from(bytes);
        // Keep a prefix of the real body so that some entries decode before the garbage.
        bad.set(garbage.subarray(keep), keep);
        bad.set(encodeTrailer(bad.subarray(0, size), BlockType.none), size);
        const fs2 = new MemoryFileSystem();
        fs2.create('c.sst').append(bad);
        const t = openSSTable(fs2, 'c.sst', { id: 1 });
        const tryAll = (f: () => void): void => {
          try {
            f();
          } catch (e) {
            expect(isTabletopError(e, 'DataLoss')).toBe(true);
          }
        };
        const it = t.newIterator();
        tryAll(() => {
          for (it.first(); it.valid; it.next());
        });
        tryAll(() => {
          for (it.last(); it.valid; it.prev());
        });
        for (const [k] of entries) tryAll(() => t.get(k));
        it.close();
        t.close();
      }),
      { numRuns: 500 },
    );
  });
});

function firstBlockSize(r: { sampleKeys(step: number): { offsetBytes: number }[] }): number {
  // The first sample at step 1 is the end of block 0 (its size plus the trailer).
  return r.sampleKeys(1)[0]!.offsetBytes - TRAILER_BYTES;
}

describe('block cursor on arbitrary bodies', () => {
  it('either decodes or throws DataLoss, whatever the bytes', () => {
    const bodyArb = fc.tuple(fc.uint8Array({ maxLength: 120 }), fc.uniqueArray(fc.nat(119), { maxLength: 6 })).map(([entries, rs]) => {
      const restarts = [0, ...rs.filter((r) => r > 0 && r < entries.length).sort((a, b) => a - b)].filter(() => entries.length > 0);
      const tail = Buffer.alloc(4 * restarts.length + 4);
      restarts.forEach((r, i) => tail.writeUInt32LE(r, 4 * i));
      tail.writeUInt32LE(restarts.length, 4 * restarts.length);
      return Buffer.concat([entries, tail]);
    });
    fc.assert(
      fc.property(
        bodyArb,
        fc.array(fc.oneof(fc.constantFrom('first', 'last', 'next', 'prev'), fc.string({ maxLength: 4 })), { maxLength: 30 }),
        (body, ops) => {
          expect(checkBlockBody(body)).toBeUndefined();
          const c = new BlockCursor();
          c.reset(body, 'b', 0);
          for (const op of ops) {
            try {
              if (op === 'first') c.first();
              else if (op === 'last') c.last();
              else if (op === 'next') {
                if (c.valid) c.next();
              } else if (op === 'prev') {
                if (c.valid) c.prev();
              } else c.seekGE(op);
              if (c.valid) expect(c.value.length).toBe(c['valueLength']);
            } catch (e) {
              expect(isTabletopError(e, 'DataLoss')).toBe(true);
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('rejects malformed restart arrays', () => {
    const body = (...u32: number[]): Buffer => {
      const b = Buffer.alloc(4 * u32.length);
      u32.forEach((v, i) => b.writeUInt32LE(v, 4 * i));
      return b;
    };
    expect(checkBlockBody(Buffer.alloc(2))).toMatch(/too short/);
    expect(checkBlockBody(body(0xffffffff))).toMatch(/does not fit/);
    expect(checkBlockBody(Buffer.concat([Buffer.alloc(8), body(0)]))).toMatch(/no restart points/);
    expect(checkBlockBody(Buffer.concat([Buffer.alloc(8), body(4, 1)]))).toMatch(/restart point 0/);
    expect(checkBlockBody(Buffer.concat([Buffer.alloc(8), body(0, 9, 2)]))).toMatch(/restart point 1/);
    expect(checkBlockBody(body(0))).toBeUndefined();
  });
});

describe('corruption on the disk filesystem', () => {
  it('reports a damaged or truncated file on disk as DataLoss', async () => {
    const dir = nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), 'sstable-corrupt-'));
    try {
      const fs = createNodeFileSystem(dir);
      const { bytes, entries } = await smallTable();
      nodeFs.writeFileSync(nodePath.join(dir, 'c.sst'), bytes);
      const r = openSSTable(fs, 'c.sst', { id: 1 });
      expect(r.get(entries[5]![0])?.equals(entries[5]![1])).toBe(true);
      r.close();
      const damaged = Buffer.from(bytes);
      damaged[10]! ^= 0x04;
      nodeFs.writeFileSync(nodePath.join(dir, 'c.sst'), damaged);
      const d = openSSTable(fs, 'c.sst', { id: 2 });
      expect(() => d.get(entries[0]![0])).toThrow(/^sstable c\.sst: data block at offset 0 \(size \d+\) fails its checksum$/);
      d.close();
      nodeFs.truncateSync(nodePath.join(dir, 'c.sst'), bytes.length - 1);
      expect(() => openSSTable(fs, 'c.sst', { id: 3 })).toThrow(expect.objectContaining({ code: 'DataLoss' }));
    } finally {
      nodeFs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
