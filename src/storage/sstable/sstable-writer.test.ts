import { describe, expect, it } from 'vitest';
import { createFaultFileSystem, failNth } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { openSSTable } from './sstable-reader.js';
import { createSSTableWriter } from './sstable-writer.js';
import { writeTable } from './testing/tables.js';

const v = (s: string): Buffer => Buffer.from(s);

describe('SSTable writer', () => {
  it('rejects keys that are not strictly ascending, in byte order', () => {
    const fs = new MemoryFileSystem();
    const w = createSSTableWriter(fs.create('t.sst'));
    w.add('b', v('1'));
    expect(() => w.add('b', v('2'))).toThrow(/key b does not sort after the previous key b/);
    expect(() => w.add('a', v('2'))).toThrow(/does not sort after/);
    w.add('\xff', v('3')); // 0xff sorts after 'b' as an unsigned byte
    expect(w.entries).toBe(2);
    w.abandon();
  });

  it('validates its options', () => {
    const fs = new MemoryFileSystem();
    expect(() => createSSTableWriter(fs.create('t.sst'), { blockSize: 0 })).toThrow(/blockSize/);
    expect(() => createSSTableWriter(fs.create('t.sst'), { restartInterval: 1.5 })).toThrow(/restartInterval/);
    expect(() => createSSTableWriter(fs.create('t.sst'), { bloomBitsPerKey: -1 })).toThrow(/bloomBitsPerKey/);
    expect(() => createSSTableWriter(fs.create('t.sst'), { compression: 'zstd' as 'lz4' })).toThrow(/compression/);
  });

  it('builds a large filter in pieces, awaiting the pause between them, into the same file as without one', async () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `row${String(i).padStart(6, '0')}`);
    const build = async (fs: MemoryFileSystem, pause?: () => Promise<void> | undefined): Promise<void> => {
      const w = createSSTableWriter(fs.create('t.sst'), { createdAtMillis: 1 });
      for (const k of keys) w.add(k, v(k));
      await w.finish(pause);
    };
    const plain = new MemoryFileSystem();
    await build(plain);
    const sliced = new MemoryFileSystem();
    let pauses = 0;
    let awaited = 0;
    await build(sliced, () => {
      pauses++;
      // Every other pause hands the thread back, as the time share does when a slice is over.
      return pauses % 2 === 0 ? new Promise<void>((resolve) => setImmediate(() => (awaited++, resolve()))) : undefined;
    });
    expect(pauses).toBeGreaterThanOrEqual(3);
    expect(awaited).toBe(Math.floor(pauses / 2));
    const reader = openSSTable(sliced, 't.sst', { id: 1 });
    for (const k of keys) expect(reader.mayContain(k)).toBe(true);
    expect(sliced.readFile('t.sst').equals(plain.readFile('t.sst'))).toBe(true);
  });

  it('refuses use after finish or abandon', async () => {
    const fs = new MemoryFileSystem();
    const w = createSSTableWriter(fs.create('t.sst'));
    w.add('a', v('1'));
    await w.finish();
    expect(() => w.add('b', v('2'))).toThrow(/writer is finished/);
    await expect(w.finish()).rejects.toThrow(/writer is finished/);
    w.abandon(); // no-op once finished
    const w2 = createSSTableWriter(fs.create('u.sst'));
    w2.abandon();
    w2.abandon();
    expect(() => w2.add('a', v('1'))).toThrow(/writer is abandoned/);
  });

  it('syncs the file: a finished table survives a crash', async () => {
    const fs = new MemoryFileSystem();
    await fs.syncDir('.');
    await writeTable(fs, 't.sst', [['k', v('v')]]);
    await fs.syncDir('.');
    const after = fs.crash();
    const r = openSSTable(after, 't.sst', { id: 1 });
    expect(r.get('k')).toEqual(v('v'));
    r.close();
  });

  it('an I/O error while writing poisons the writer', async () => {
    const fs = createFaultFileSystem(new MemoryFileSystem(), failNth(1, ['append']));
    const w = createSSTableWriter(fs.create('t.sst'), { blockSize: 64 });
    w.add('a', Buffer.alloc(100));
    expect(() => w.add('b', Buffer.alloc(100))).toThrow(/injected I\/O error: append/);
    expect(() => w.add('c', Buffer.alloc(100))).toThrow(/writer is failed/);
    await expect(w.finish()).rejects.toThrow(/writer is failed/);
  });

  it('a failed sync fails finish', async () => {
    const fs = createFaultFileSystem(new MemoryFileSystem(), failNth(1, ['sync']));
    const w = createSSTableWriter(fs.create('t.sst'));
    w.add('a', v('1'));
    await expect(w.finish()).rejects.toThrow(/injected I\/O error: sync/);
    expect(() => w.add('b', v('2'))).toThrow(/writer is failed/);
  });

  it('estimates the finished size as it goes', async () => {
    const fs = new MemoryFileSystem();
    const w = createSSTableWriter(fs.create('t.sst'), { compression: 'none' });
    for (let i = 0; i < 2000; i++) w.add(`key${String(i).padStart(5, '0')}`, Buffer.alloc(100, i));
    const estimate = w.estimatedSize;
    const info = await w.finish();
    expect(Math.abs(estimate - info.size) / info.size).toBeLessThan(0.05);
  });

  it('writes no filter at 0 bits per key; every key may then be present', async () => {
    const fs = new MemoryFileSystem();
    await writeTable(fs, 't.sst', [['a', v('1')]], { bloomBitsPerKey: 0 });
    const r = openSSTable(fs, 't.sst', { id: 1 });
    expect(r.mayContain('zzz')).toBe(true);
    expect(r.get('zzz')).toBeUndefined();
    expect(r.get('a')).toEqual(v('1'));
    r.close();
  });
});

describe('compression sampling', () => {
  it('stops compressing incompressible data block after block, and resumes when data compresses again', async () => {
    const fs = new MemoryFileSystem();
    const w = createSSTableWriter(fs.create('t.sst'), { blockSize: 1024 });
    let key = 0;
    const add = (value: Buffer): void => w.add(`k${String(key++).padStart(6, '0')}`, value);
    let seed = 7;
    const noise = (): Buffer => Buffer.from(Array.from({ length: 1000 }, () => (seed = (seed * 48271) % 2147483647) & 0xff));
    for (let i = 0; i < 200; i++) add(noise());
    const afterNoise = w.estimatedSize;
    for (let i = 0; i < 400; i++) add(Buffer.alloc(1000, 'z'));
    const info = await w.finish();
    // The compressible part shrank: sampling found that it compresses and switched compression back on.
    expect(info.size - afterNoise).toBeLessThan(400 * 1000 * 0.2);
    const r = openSSTable(fs, 't.sst', { id: 1 });
    expect(r.get('k000300')).toEqual(Buffer.alloc(1000, 'z'));
    expect(r.get('k000010')?.length).toBe(1000);
    r.close();
  });
});
