import { describe, expect, it } from 'vitest';
import { createFaultFileSystem, failNth } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { decodeRecord, decodeRecyclableRecord, encodeRecord, encodeRecyclableRecord, maskCrc, unmaskCrc } from './log-format.js';
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
  /** A log writer on a memory filesystem that counts the syncs. */
  function countingWriter(): { mem: MemoryFileSystem; w: LogWriter; syncs: () => number } {
    const mem = new MemoryFileSystem();
    let syncs = 0;
    const fs = createFaultFileSystem(mem, (op) => {
      if (op === 'sync') syncs++;
      return undefined;
    });
    return { mem, w: new LogWriter(fs.create('wal.log')), syncs: () => syncs };
  }

  it('group-commits concurrent appends with fewer syncs than writers', async () => {
    const { mem, w, syncs } = countingWriter();
    await Promise.all(Array.from({ length: 100 }, (_, i) => w.append(payload(i))));
    expect(syncs()).toBe(1);
    const r = replayLog(mem, 'wal.log');
    expect(r.records.map((b) => b[0])).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(r.tornTail).toBe(false);
  });

  it('writers of one turn of the event loop share one sync, the first one included', async () => {
    const { mem, w, syncs } = countingWriter();
    // As requests parsed from one network read arrive: one by one, in microtasks and next-tick callbacks.
    const acks: Promise<void>[] = [w.append(payload(0))];
    await Promise.resolve();
    acks.push(w.append(payload(1)));
    await new Promise<void>((r) => process.nextTick(r));
    acks.push(w.append(payload(2)));
    await Promise.all(acks);
    expect(syncs()).toBe(1);
    // A writer of a later turn, while no sync runs, gets its own.
    await w.append(payload(3));
    expect(syncs()).toBe(2);
    expect(replayLog(mem, 'wal.log').records.map((b) => b[0])).toEqual([0, 1, 2, 3]);
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

describe('recyclable commit-log files (written over by a later log)', () => {
  it('round-trips a record, detects any flipped byte, and tells a record of another log', () => {
    const rec = encodeRecyclableRecord(Buffer.from('payload bytes'), 7);
    expect(decodeRecyclableRecord(rec, 0, 7)).toMatchObject({ kind: 'record', next: rec.length });
    expect(decodeRecyclableRecord(rec, 0, 8).kind).toBe('stale');
    for (let i = 0; i < rec.length; i++) {
      const bad = Buffer.from(rec);
      bad[i] = (bad[i] ?? 0) ^ 0x01;
      expect(decodeRecyclableRecord(bad, 0, 7).kind).toBe('bad');
    }
  });

  /** A file that held log 1 (`old` records, synced), renamed to log 2 and written over from its start. */
  async function reusedFile(old: number, random: () => number): Promise<{ mem: MemoryFileSystem; w: LogWriter }> {
    const mem = new MemoryFileSystem();
    const w1 = new LogWriter(mem.create('000001.wal'));
    await Promise.all(Array.from({ length: old }, (_, i) => w1.appendRecord(encodeRecyclableRecord(payload(100 + i, 1 + Math.floor(random() * 200)), 1))));
    w1.close();
    mem.rename('000001.wal', '000002.wal');
    await mem.syncDir('.');
    return { mem, w: new LogWriter(mem.reuse('000002.wal')) };
  }

  it('replay stops at the old log\'s records, and after a crash keeps every acknowledged record with no DataLoss', async () => {
    let seed = 99;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    let tornSeen = 0;
    for (let trial = 0; trial < 60; trial++) {
      const { mem, w } = await reusedFile(10 + Math.floor(random() * 40), random);
      const acked: number[] = [];
      const n = 1 + Math.floor(random() * 30);
      for (let i = 0; i < n; i++) {
        const p = w.appendRecord(encodeRecyclableRecord(payload(i, 1 + Math.floor(random() * 300)), 2)).then(() => void acked.push(i));
        if (random() < 0.3) await p;
        else if (random() < 0.3) await Promise.resolve();
      }
      const after = mem.crash(random);
      const r = replayLog(after, '000002.wal', 2);
      const got = r.records.map((b) => b[0]);
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
      for (const a of acked) expect(got).toContain(a);
      if (r.tornTail) tornSeen++;
    }
    expect(tornSeen).toBeGreaterThan(0);
  });

  it('damage followed by a record of this log is DataLoss; followed only by the old log\'s records, a torn tail', async () => {
    const random = (): number => 0.5;
    const { mem, w } = await reusedFile(20, random);
    for (let i = 0; i < 5; i++) await w.appendRecord(encodeRecyclableRecord(payload(i, 40), 2));
    const good = mem.readFile('000002.wal');
    const damaged = (at: number): void => {
      const data = Buffer.from(good);
      data[at] = (data[at] ?? 0) ^ 0xff;
      const f = mem.create('000002.wal');
      f.append(data);
      f.close();
    };
    damaged(60); // inside the second record (records are 12 + 40 bytes)
    expect(() => replayLog(mem, '000002.wal', 2)).toThrow(/corrupt at offset 52/);
    damaged(4 * 52 + 20); // inside the last record of log 2: only log 1's records follow
    const r = replayLog(mem, '000002.wal', 2);
    expect(r.records).toHaveLength(4);
    expect(r.tornTail).toBe(true);
  });
});
