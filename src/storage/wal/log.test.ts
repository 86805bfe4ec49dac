import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFaultFileSystem, failNth } from '../fs/fault-fs.js';
import { slowSyncFile } from '../testing/slow-sync-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import {
  decodeRecord,
  decodeRecyclableRecord,
  encodeRecord,
  encodeRecyclableRecord,
  encodeSyncMarker,
  maskCrc,
  unmaskCrc,
} from './log-format.js';
import { replayLog } from './log-reader.js';
import { LogWriter } from './log-writer.js';
import { seededRandom } from '../../testing/random.js';

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
    // One group, one promise for all of its writers (the engine publishes a group's writes by it).
    expect(new Set(acks).size).toBe(1);
    await Promise.all(acks);
    expect(syncs()).toBe(1);
    // A writer of a later turn, while no sync runs, gets its own.
    const later = w.append(payload(3));
    expect(later).not.toBe(acks[0]);
    await later;
    expect(syncs()).toBe(2);
    expect(replayLog(mem, 'wal.log').records.map((b) => b[0])).toEqual([0, 1, 2, 3]);
  });

  it('after a crash, every acknowledged record survives and the torn tail is dropped, even when its pages reached the disk out of order', async () => {
    const random = seededRandom(42);
    let outOfOrder = 0;
    for (let trial = 0; trial < 150; trial++) {
      const mem = new MemoryFileSystem();
      // Syncs complete a turn of the event loop later (not after wall-clock time, so the test does not depend on the machine's speed).
      const w = new LogWriter(
        slowSyncFile(mem.create('000001.wal'), () => new Promise((r) => setImmediate(r))),
        (synced) => encodeSyncMarker(synced, 1),
      );
      await mem.syncDir('.');
      const acked: number[] = [];
      const n = 5 + Math.floor(random() * 30);
      const pending: Promise<void>[] = [];
      const append = (i: number, size: number): Promise<void> => w.appendRecord(encodeRecyclableRecord(payload(i, size), 1));
      for (let i = 0; i < n; i++) {
        pending.push(append(i, 1 + Math.floor(random() * 3000)).then(() => void acked.push(i)));
        if (random() < 0.3) await Promise.resolve().then(() => undefined);
        if (random() < 0.2) await pending[pending.length - 1];
      }
      // Crash with some writes unacknowledged: more of them, written (one group of several pages) but not synced.
      for (let i = n; i < n + 5; i++) void append(i, 2000).catch(() => undefined);
      for (let turns = Math.floor(random() * 3); turns > 0; turns--) await new Promise((r) => setImmediate(r));
      const after = mem.crash(random);
      const r = replayLog(after, '000001.wal', 1);
      const got = r.records.map((b) => b[0]);
      // A prefix of the appended sequence, containing every acknowledged one.
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
      for (const a of acked) expect(got).toContain(a);
      if (r.tornTail && intactRecordAfter(after.readFile('000001.wal'), r.validBytes, 1)) outOfOrder++;
    }
    // Damage followed by intact records of the same (unsynced) group happened, and was a torn tail.
    expect(outOfOrder).toBeGreaterThan(3);
  });

  it('a log extended with zeros ahead of its writes keeps every acknowledged record across crashes, and replay ends cleanly at the zeros', async () => {
    const random = seededRandom(7);
    let grew = 0;
    let cleanEnds = 0;
    for (let trial = 0; trial < 100; trial++) {
      const mem = new MemoryFileSystem();
      const file = mem.create('000001.wal');
      const w = new LogWriter(
        slowSyncFile(file, () => new Promise((r) => setImmediate(r))),
        (synced) => encodeSyncMarker(synced, 1),
        undefined,
        { extendBy: 4096 },
      );
      await mem.syncDir('.');
      const acked: number[] = [];
      const n = 5 + Math.floor(random() * 30);
      const append = (i: number): Promise<void> => w.appendRecord(encodeRecyclableRecord(payload(i, 1 + Math.floor(random() * 1500)), 1));
      for (let i = 0; i < n; i++) {
        const p = append(i).then(() => void acked.push(i));
        if (random() < 0.3) await p;
      }
      if (random() < 0.5) await w.flush();
      else for (let i = n; i < n + 3; i++) void append(i).catch(() => undefined);
      for (let turns = Math.floor(random() * 3); turns > 0; turns--) await new Promise((r) => setImmediate(r));
      if (file.length > file.size) grew++;
      const after = mem.crash(random);
      const r = replayLog(after, '000001.wal', 1);
      const got = r.records.map((b) => b[0]);
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i));
      for (const a of acked) expect(got).toContain(a);
      if (!r.tornTail && after.size('000001.wal') > r.validBytes) cleanEnds++;
    }
    // The file was ahead of the writes, and replays ended at zeros, not at a torn tail.
    expect(grew).toBeGreaterThan(50);
    expect(cleanEnds).toBeGreaterThan(20);
  });

  it('extends the file ahead of small groups only: a group of half the extension or more writes no zeros', async () => {
    const mem = new MemoryFileSystem();
    const file = mem.create('000001.wal');
    const w = new LogWriter(file, (synced) => encodeSyncMarker(synced, 1), undefined, { extendBy: 4096 });
    await w.appendRecord(encodeRecyclableRecord(payload(0, 100), 1));
    expect(file.length).toBe(file.size + 4096);
    // Written over the zeros: the file does not grow.
    const extended = file.length;
    await w.appendRecord(encodeRecyclableRecord(payload(1, 3000), 1));
    expect(file.size).toBeLessThan(extended);
    expect(file.length).toBe(extended);
    const before = file.length;
    await Promise.all([0, 1, 2].map((i) => w.appendRecord(encodeRecyclableRecord(payload(2 + i, 1000), 1))));
    // A group of 3,000 bytes and more past the end of the zeros: no new zeros after it.
    expect(file.size).toBeGreaterThan(before);
    expect(file.length).toBe(file.size);
    await w.appendRecord(encodeRecyclableRecord(payload(5, 10), 1));
    expect(file.length).toBe(file.size + 4096);
    const r = replayLog(mem, '000001.wal', 1);
    expect(r.records.map((b) => b[0])).toEqual([0, 1, 2, 3, 4, 5]);
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
    const salvaged = replayLog(mem, 'wal.log', undefined, { salvage: true });
    expect(salvaged.records.map((b) => b[0])).toEqual([0, 2, 3, 4]);
    expect(salvaged.damage).toEqual([{ offset: 48, bytes: 48, where: 'middle' }]);
  });

  it('writes nothing before the previous log is durable, and fails when the previous log failed', async () => {
    const mem = new MemoryFileSystem();
    let release!: () => void;
    const w = new LogWriter(mem.create('wal.log'), undefined, new Promise<void>((r) => (release = r)));
    let acked = false;
    const p = w.append(payload(1)).then(() => (acked = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(mem.readFile('wal.log').length).toBe(0);
    expect(acked).toBe(false);
    release();
    await p;
    expect(replayLog(mem, 'wal.log').records.map((b) => b[0])).toEqual([1]);
    // A log with nothing appended is durable only once the one before it is: the chain holds across it.
    let releaseIdle!: () => void;
    const idle = new LogWriter(mem.create('idle.log'), undefined, new Promise<void>((r) => (releaseIdle = r)));
    let idleFlushed = false;
    const flushed = idle.flush().then(() => (idleFlushed = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(idleFlushed).toBe(false);
    releaseIdle();
    await flushed;
    const failed = new LogWriter(mem.create('wal2.log'), undefined, Promise.reject(new Error('disk gone')));
    await expect(failed.append(payload(2))).rejects.toMatchObject({ code: 'Unavailable' });
    await expect(failed.append(payload(3))).rejects.toMatchObject({ code: 'Unavailable' });
    expect(mem.readFile('wal2.log').length).toBe(0);
  });

  it('a failed sync rejects the waiting writers and poisons the log', async () => {
    const fs = createFaultFileSystem(new MemoryFileSystem(), failNth(1, ['sync']));
    const w = new LogWriter(fs.create('wal.log'));
    await expect(w.append(payload(1))).rejects.toMatchObject({ code: 'Unavailable' });
    await expect(w.append(payload(2))).rejects.toMatchObject({ code: 'Unavailable' });
  });
});

describe('commit delay (LogWriter commitDelayMillis)', () => {
  const DELAY = 50;
  // Only the delay's timer is fake: syncs and turns of the event loop run for real, and time moves only when a test says so.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A log with a commit delay whose syncs are counted and can be held (a slow disk). */
  function delayedWriter(): { mem: MemoryFileSystem; w: LogWriter; syncs: () => number; hold: () => () => void } {
    const mem = new MemoryFileSystem();
    let syncs = 0;
    let held: Promise<void> | undefined;
    const file = slowSyncFile(mem.create('wal.log'), () => {
      syncs++;
      return held ?? Promise.resolve();
    });
    const hold = (): (() => void) => {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return () => {
        held = undefined;
        release();
      };
    };
    return { mem, w: new LogWriter(file, undefined, undefined, { commitDelayMillis: DELAY }), syncs: () => syncs, hold };
  }
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  /** Whether `p` settles within a few turns of the event loop (the fake clock standing still). */
  async function settlesSoon(p: Promise<unknown>, turns = 10): Promise<boolean> {
    let done = false;
    void p.then(() => (done = true));
    for (let i = 0; i < turns && !done; i++) await turn();
    return done;
  }
  const order = (mem: MemoryFileSystem): number[] => replayLog(mem, 'wal.log').records.map((b) => b[0] ?? -1);

  it('a lone writer never waits: each write is synced at once, whether it writes again at once or turns later', async () => {
    const { mem, w, syncs } = delayedWriter();
    // Each write issued as the last one is acknowledged, as an awaiting caller in this process does.
    let n = 0;
    const chain = new Promise<void>((resolve) => {
      const next = (): void => {
        if (n === 10) resolve();
        else void w.append(payload(n++)).then(next);
      };
      next();
    });
    expect(await settlesSoon(chain, 50)).toBe(true);
    for (let i = 10; i < 15; i++) {
      await turn();
      await turn();
      expect(await settlesSoon(w.append(payload(i)))).toBe(true);
    }
    expect(syncs()).toBe(15);
    expect(order(mem)).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it('writes that arrive while a sync runs wait for company, and the writes of the delay share their sync', async () => {
    const { mem, w, syncs, hold } = delayedWriter();
    const release = hold();
    const a = w.append(payload(0));
    await turn();
    expect(syncs()).toBe(1);
    const bc = [w.append(payload(1)), w.append(payload(2))];
    release();
    await a;
    expect(await settlesSoon(Promise.all(bc))).toBe(false);
    expect(syncs()).toBe(1);
    const d = w.append(payload(3));
    await turn();
    vi.advanceTimersByTime(DELAY);
    await Promise.all([...bc, d]);
    expect(syncs()).toBe(2);
    expect(order(mem)).toEqual([0, 1, 2, 3]);
  });

  it('a write read just after a sync that blocked the event loop counts as company; one a turn later does not', async () => {
    const { mem, w, syncs } = delayedWriter();
    await w.append(payload(0));
    // The sync ran inside a turn (as one on the event loop does): what arrived meanwhile is read in the next turn.
    await turn();
    const b = w.append(payload(1));
    expect(await settlesSoon(b)).toBe(false);
    vi.advanceTimersByTime(DELAY);
    await b;
    expect(syncs()).toBe(2);
    await turn();
    await turn();
    expect(await settlesSoon(w.append(payload(2)))).toBe(true);
    expect(syncs()).toBe(3);
    expect(order(mem)).toEqual([0, 1, 2]);
  });

  it('after a group of several writers the next group waits for company; after a group of one it does not', async () => {
    const { w, syncs } = delayedWriter();
    await Promise.all([w.append(payload(0)), w.append(payload(1)), w.append(payload(2))]);
    expect(syncs()).toBe(1);
    const next = w.append(payload(3));
    expect(await settlesSoon(next)).toBe(false);
    vi.advanceTimersByTime(DELAY);
    await next;
    expect(await settlesSoon(w.append(payload(4)))).toBe(true);
    expect(syncs()).toBe(3);
  });

  it('a waiting group is synced at once when it reaches 16 writes or 64 KiB, and a bulk write never waits', async () => {
    const { w, syncs } = delayedWriter();
    await Promise.all([w.append(payload(0)), w.append(payload(1))]);
    const group = [w.append(payload(2))];
    expect(await settlesSoon(group[0]!)).toBe(false);
    for (let i = 3; i < 17; i++) group.push(w.append(payload(i)));
    expect(await settlesSoon(Promise.all(group))).toBe(false);
    group.push(w.append(payload(17)));
    expect(await settlesSoon(Promise.all(group))).toBe(true);
    expect(syncs()).toBe(2);
    // Company again (a group of 16), but a write of 64 KiB goes at once, as does one that fills the group to 64 KiB.
    expect(await settlesSoon(w.append(payload(18, 64 * 1024)))).toBe(true);
    const pair = [w.append(payload(19)), w.append(payload(20))];
    await turn();
    vi.advanceTimersByTime(DELAY);
    expect(await settlesSoon(Promise.all(pair))).toBe(true);
    const small = w.append(payload(21, 1000));
    expect(await settlesSoon(small)).toBe(false);
    expect(await settlesSoon(Promise.all([small, w.append(payload(22, 64 * 1024 - 512))]))).toBe(true);
    expect(syncs()).toBe(5);
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
    await Promise.all(
      Array.from({ length: old }, (_, i) => w1.appendRecord(encodeRecyclableRecord(payload(100 + i, 1 + Math.floor(random() * 200)), 1))),
    );
    w1.close();
    mem.rename('000001.wal', '000002.wal');
    await mem.syncDir('.');
    return { mem, w: new LogWriter(mem.reuse('000002.wal')) };
  }

  it("replay stops at the old log's records, and after a crash keeps every acknowledged record with no DataLoss", async () => {
    const random = seededRandom(99);
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

  it("damage is DataLoss once a later sync marker says it was synced; in the last group, or followed only by the old log's records, a torn tail", async () => {
    const random = (): number => 0.5;
    const { mem } = await reusedFile(20, random);
    const w = new LogWriter(mem.reuse('000002.wal'), (synced) => encodeSyncMarker(synced, 2));
    // Four groups of one record, then a last group of two: marker (18 bytes) + records (12 + 40 bytes).
    for (let i = 0; i < 4; i++) await w.appendRecord(encodeRecyclableRecord(payload(i, 40), 2));
    await Promise.all([
      w.appendRecord(encodeRecyclableRecord(payload(4, 40), 2)),
      w.appendRecord(encodeRecyclableRecord(payload(5, 40), 2)),
    ]);
    const good = mem.readFile('000002.wal');
    expect(replayLog(mem, '000002.wal', 2).records.map((b) => b[0])).toEqual([0, 1, 2, 3, 4, 5]);
    const damaged = (at: number): void => {
      const data = Buffer.from(good);
      data[at] = (data[at] ?? 0) ^ 0xff;
      const f = mem.create('000002.wal');
      f.append(data);
      f.close();
    };
    const group = 18 + 52;
    damaged(group + 18 + 30); // inside the second record: later markers say it was synced
    expect(() => replayLog(mem, '000002.wal', 2)).toThrow(/corrupt at offset 88 .*sync marker.*tabletop repair/);
    // Salvage (tabletop repair) skips the damaged record, to the next group's marker, and keeps every intact record.
    const salvaged = replayLog(mem, '000002.wal', 2, { salvage: true });
    expect(salvaged.records.map((b) => b[0])).toEqual([0, 2, 3, 4, 5]);
    expect(salvaged.damage).toEqual([{ offset: 88, bytes: 52, where: 'middle' }]);
    damaged(4 * group + 18 + 30); // inside the first record of the last group: its second record is intact, but nothing says it was synced
    let r = replayLog(mem, '000002.wal', 2);
    expect(r.records.map((b) => b[0])).toEqual([0, 1, 2, 3]);
    expect(r.tornTail).toBe(true);
    // Dropped, and said: from the damaged record to the end of log 2's bytes (log 1's intact records follow).
    expect(r.damage).toEqual([{ offset: 4 * group + 18, bytes: 2 * 52, where: 'tail' }]);
    // Salvage keeps the intact second record of that group.
    expect(replayLog(mem, '000002.wal', 2, { salvage: true }).records.map((b) => b[0])).toEqual([0, 1, 2, 3, 5]);
    damaged(4 * group + 5); // inside the last group's marker
    r = replayLog(mem, '000002.wal', 2);
    expect(r.records).toHaveLength(4);
    expect(r.tornTail).toBe(true);
    damaged(4 * group + 18 + 52 + 30); // inside the last record of log 2: only log 1's records follow
    r = replayLog(mem, '000002.wal', 2);
    expect(r.records).toHaveLength(5);
    expect(r.tornTail).toBe(true);
  });

  it('a file written before sync markers existed is replayed by the same rule: damage proves nothing, a torn tail', async () => {
    const mem = new MemoryFileSystem();
    const w = new LogWriter(mem.create('000003.wal'));
    for (let i = 0; i < 4; i++) await w.appendRecord(encodeRecyclableRecord(payload(i, 40), 3));
    expect(replayLog(mem, '000003.wal', 3).records).toHaveLength(4);
    const data = mem.readFile('000003.wal');
    data[52 + 30] = (data[52 + 30] ?? 0) ^ 0xff; // inside the second record
    const f = mem.create('000003.wal');
    f.append(data);
    const r = replayLog(mem, '000003.wal', 3);
    expect(r.records.map((b) => b[0])).toEqual([0]);
    expect(r.tornTail).toBe(true);
  });

  it('a marker-shaped cell value in the torn last group is not taken for a sync marker', async () => {
    const mem = new MemoryFileSystem();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let hold = false;
    const w = new LogWriter(
      slowSyncFile(mem.create('000007.wal'), () => (hold ? held : Promise.resolve())),
      (synced) => encodeSyncMarker(synced, 7),
    );
    await w.appendRecord(encodeRecyclableRecord(payload(1, 40), 7));
    hold = true;
    // The last group, never synced: a record, then one whose payload (user data) holds a forged marker.
    void w.appendRecord(encodeRecyclableRecord(payload(2, 40), 7)).catch(() => undefined);
    void w
      .appendRecord(encodeRecyclableRecord(Buffer.concat([Buffer.alloc(5, 3), encodeSyncMarker(2 ** 40, 7)]), 7))
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 5));
    // The power loss cost the page holding the first record of that group.
    const data = mem.readFile('000007.wal');
    data[18 + 52 + 18 + 20] = (data[18 + 52 + 18 + 20] ?? 0) ^ 0xff;
    const f = mem.create('000007.wal');
    f.append(data);
    const r = replayLog(mem, '000007.wal', 7);
    expect(r.records.map((b) => b[0])).toEqual([1]);
    expect(r.tornTail).toBe(true);
    release();
  });

  it('a sync marker round-trips, is told from a batch record, and belongs to its log', () => {
    const m = encodeSyncMarker(123_456_789, 7);
    expect(decodeRecyclableRecord(m, 0, 7)).toEqual({ kind: 'marker', syncedThrough: 123_456_789, next: m.length });
    expect(decodeRecyclableRecord(m, 0, 8).kind).toBe('stale');
    for (let i = 0; i < m.length; i++) {
      const bad = Buffer.from(m);
      bad[i] = (bad[i] ?? 0) ^ 0x01;
      expect(decodeRecyclableRecord(bad, 0, 7).kind).toBe('bad');
    }
    // Readers without markers see an implausible length: damage, never a batch.
    expect(decodeRecord(m, 0).kind).toBe('bad');
  });
});

/** True when an intact record of log `log` starts somewhere after `from`. */
function intactRecordAfter(data: Buffer, from: number, log: number): boolean {
  for (let at = from + 1; at + 12 <= data.length; at++) if (decodeRecyclableRecord(data, at, log).kind === 'record') return true;
  return false;
}
