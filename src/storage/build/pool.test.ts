import { describe, expect, it } from 'vitest';
import type { ByteString } from '../../model/bytes.js';
import { createFaultFileSystem } from '../fs/fault-fs.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { openSSTable } from '../sstable/index.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';
import { seededRandom } from '../../testing/random.js';
import { buildPool, localWriter, type PipelinedWriter, WorkerLost } from './pool.js';

const OPTIONS: SSTableWriterOptions = { blockSize: 4096, createdAtMillis: 1_700_000_000_000, creator: 'pool test' };

/** Ascending keys with values of mixed sizes: compressible text, random bytes, and a few larger than a batch. */
function entries(n: number, seed = 1): [ByteString, Buffer][] {
  const random = seededRandom(seed);
  const out: [ByteString, Buffer][] = [];
  for (let i = 0; i < n; i++) {
    const key = `row${String(i).padStart(8, '0')}\u0000\u00ff`;
    const kind = i % 97 === 0 ? 'big' : i % 3 === 0 ? 'random' : 'text';
    const value =
      kind === 'big'
        ? Buffer.alloc(300 * 1024, i % 251)
        : kind === 'random'
          ? Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256)))
          : Buffer.from(`value ${i} `.repeat(20));
    out.push([key, value]);
  }
  return out;
}

async function build(writer: PipelinedWriter, rows: readonly [ByteString, Buffer][]): Promise<number> {
  let waits = 0;
  for (const [k, v] of rows) {
    writer.add(k, v);
    const wait = writer.ready();
    if (wait !== undefined) {
      waits++;
      await wait;
    }
  }
  await writer.finish();
  return waits;
}

describe('the build pool', () => {
  it('builds, on a worker thread, the very bytes this thread builds', async () => {
    const fs = new MemoryFileSystem();
    const rows = entries(3000);
    await build(localWriter(fs.create('/local.sst'), OPTIONS), rows);
    const remote = buildPool(1).createWriter(fs.create('/remote.sst'), OPTIONS);
    expect(remote.worker).toBe(1);
    const waits = await build(remote, rows);
    expect(fs.readFile('/remote.sst').equals(fs.readFile('/local.sst'))).toBe(true);
    // ~9 MiB handed over in 256 KiB batches, at most 4 in flight: the producer had to wait for the worker.
    expect(waits).toBeGreaterThan(0);
    const table = openSSTable(fs, '/remote.sst', { id: 1 });
    const it = table.newIterator({});
    it.seekGE('');
    let n = 0;
    for (; it.valid; it.next()) {
      expect(it.key).toBe(rows[n]![0]);
      expect(Buffer.from(it.value).equals(rows[n]![1])).toBe(true);
      n++;
    }
    expect(n).toBe(rows.length);
    it.close();
  });

  it('fails a build whose keys are out of order with the writer’s own error', async () => {
    const fs = new MemoryFileSystem();
    const writer = buildPool(1).createWriter(fs.create('/bad.sst'), OPTIONS);
    writer.add('b', Buffer.from('1'));
    writer.add('a', Buffer.from('2'));
    await expect(writer.finish()).rejects.toMatchObject({ code: 'Internal', message: expect.stringMatching(/does not sort after/) });
    writer.abandon();
  });

  it('reports a worker that dies mid-build as WorkerLost, and starts a new one for the next build', async () => {
    const fs = new MemoryFileSystem();
    const pool = buildPool(1);
    const rows = entries(2000, 2);
    const writer = pool.createWriter(fs.create('/lost.sst'), OPTIONS);
    const started = pool.started;
    let failure: unknown;
    try {
      for (const [i, [k, v]] of rows.entries()) {
        writer.add(k, v);
        if (i === 500) pool.crashWorkers();
        const wait = writer.ready();
        if (wait !== undefined) await wait;
      }
      await writer.finish();
    } catch (e) {
      failure = e;
    }
    expect(failure).toBeInstanceOf(WorkerLost);
    expect((failure as WorkerLost).message).toMatch(/background worker 1 died: .*exited with code 1/);
    writer.abandon();
    expect(pool.activeBuilds).toBe(0);
    await build(pool.createWriter(fs.create('/after.sst'), OPTIONS), rows.slice(0, 100));
    expect(pool.started).toBe(started + 1);
    await build(localWriter(fs.create('/after-local.sst'), OPTIONS), rows.slice(0, 100));
    expect(fs.readFile('/after.sst').equals(fs.readFile('/after-local.sst'))).toBe(true);
  });

  it('stops a build when its file cannot take the bytes (a full disk), with the file system’s error', async () => {
    const mem = new MemoryFileSystem();
    let appends = 0;
    const fs = createFaultFileSystem(mem, (op) => (op === 'append' && ++appends === 1 ? 'error' : undefined));
    const writer = buildPool(1).createWriter(fs.create('/full.sst'), OPTIONS);
    await expect(build(writer, entries(3000, 3))).rejects.toThrow(/injected I\/O error: append/);
    writer.abandon();
    expect(buildPool(1).activeBuilds).toBe(0);
  });
});
