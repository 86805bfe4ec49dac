import { describe, expect, it } from 'vitest';
import { createFaultFileSystem, failNth } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { decodeRecord, encodeRecord, maskCrc, unmaskCrc } from './log-format.js';
import { replayLog } from './log-reader.js';
import { LogWriter } from './log-writer.js';

const payload = (i: number, n = 20): Buffer => Buffer.alloc(n, i & 0xff);

describe('log framing', () => {
  it('masks and unmasks CRCs', () => {
    for (const c of [0, 1, 0xffffffff, 0x12345678]) expect(unmaskCrc(maskCrc(c))).toBe(c);
  });

  it('round-trips records and detects any single flipped byte', () => {
    const rec = encodeRecord(Buffer.from('payload bytes'));
    const ok = decodeRecord(rec, 0);
    expect(ok.kind).toBe('record');
    for (let i = 0; i < rec.length; i++) {
      const bad = Buffer.from(rec);
      bad[i] = (bad[i] ?? 0) ^ 0x01;
      expect(decodeRecord(bad, 0).kind).toBe('bad');
    }
  });
});

describe('LogWriter + replayLog', () => {
  it('group-commits concurrent appends with fewer syncs than writers', async () => {
    const mem = new MemoryFileSystem();
    let syncs = 0;
    const fs = createFaultFileSystem(mem, (op) => {
      if (op === 'sync') syncs++;
      return undefined;
    });
    const w = new LogWriter(fs.create('wal.log'));
    await Promise.all(Array.from({ length: 100 }, (_, i) => w.append(payload(i))));
    expect(syncs).toBeLessThanOrEqual(2);
    const r = replayLog(mem, 'wal.log');
    expect(r.records.map((b) => b[0])).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(r.tornTail).toBe(false);
  });

  it('after a crash, every acknowledged record survives and the torn tail is dropped', async () => {
    let seed = 42;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let trial = 0; trial < 40; trial++) {
      const mem = new MemoryFileSystem();
      const w = new LogWriter(mem.create('wal.log'));
      await mem.syncDir('.');
      const acked: number[] = [];
      const n = 5 + Math.floor(random() * 30);
      const pending: Promise<void>[] = [];
      for (let i = 0; i < n; i++) {
        pending.push(w.append(payload(i, 1 + Math.floor(random() * 300))).then(() => void acked.push(i)));
        if (random() < 0.3) await Promise.resolve().then(() => undefined);
        if (random() < 0.2) await pending[pending.length - 1];
      }
      // Crash with some writes unacknowledged: append more without waiting.
      for (let i = n; i < n + 5; i++) void w.append(payload(i, 50)).catch(() => undefined);
      const after = mem.crash(random);
      const r = replayLog(after, 'wal.log');
      const got = r.records.map((b) => b[0]);
      // A prefix of the appended sequence, containing every acknowledged one.
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
      for (const a of acked) expect(got).toContain(a);
    }
  });

  it('reports corruption in the middle as DataLoss with the offset', async () => {
    const mem = new MemoryFileSystem();
    const w = new LogWriter(mem.create('wal.log'));
    for (let i = 0; i < 5; i++) await w.append(payload(i, 40));
    const data = mem.readFile('wal.log');
    data[60] = (data[60] ?? 0) ^ 0xff;
    const f = mem.create('wal.log');
    f.append(data);
    expect(() => replayLog(mem, 'wal.log')).toThrow(/corrupt at offset 48/);
  });

  it('a failed sync rejects the waiting writers and poisons the log', async () => {
    const fs = createFaultFileSystem(new MemoryFileSystem(), failNth(1, ['sync']));
    const w = new LogWriter(fs.create('wal.log'));
    await expect(w.append(payload(1))).rejects.toMatchObject({ code: 'Unavailable' });
    await expect(w.append(payload(2))).rejects.toMatchObject({ code: 'Unavailable' });
  });
});
