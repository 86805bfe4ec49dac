import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ByteString } from '../../model/bytes.js';
import { errnoOf } from '../fs/errno.js';
import { createFaultFileSystem } from '../fs/fault-fs.js';
import type { WritableFile } from '../fs/file-system.js';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import { openSSTable } from '../sstable/index.js';
import type { SSTableWriterOptions } from '../sstable/sstable-writer.js';
import { seededRandom } from '../../testing/random.js';
import { type BuildPool, buildPool, localWriter, type PipelinedWriter, WorkerLost } from './pool.js';

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

/** Builds `rows`, stopping every worker after the row at `crashAt`: what the build failed with. */
async function buildCrashingAt(
  pool: BuildPool,
  writer: PipelinedWriter,
  rows: readonly [ByteString, Buffer][],
  crashAt: number,
): Promise<unknown> {
  try {
    for (const [i, [k, v]] of rows.entries()) {
      writer.add(k, v);
      if (i === crashAt) pool.crashWorkers();
      const wait = writer.ready();
      if (wait !== undefined) await wait;
    }
    await writer.finish();
  } catch (e) {
    return e;
  }
  return undefined;
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
    const failure = await buildCrashingAt(pool, writer, rows, 500);
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

/** A file of the real disk whose appends, advances and close the test can see (the descriptor is the real file's). */
class WatchedFile implements WritableFile {
  appends = 0;
  advancedBytes = 0;
  closes = 0;
  constructor(
    private readonly inner: WritableFile,
    readonly descriptor: number | undefined = inner.descriptor,
  ) {}
  get path(): string {
    return this.inner.path;
  }
  get size(): number {
    return this.inner.size;
  }
  get length(): number {
    return this.inner.length;
  }
  append(data: Uint8Array): void {
    this.appends++;
    this.inner.append(data);
  }
  appendv(parts: readonly Uint8Array[]): void {
    this.appends++;
    this.inner.appendv(parts);
  }
  extend(length: number): void {
    this.inner.extend(length);
  }
  advanced(bytes: number): void {
    this.advancedBytes += bytes;
    this.inner.advanced!(bytes);
  }
  sync(): Promise<void> {
    return this.inner.sync();
  }
  close(): void {
    this.closes++;
    this.inner.close();
  }
}

describe('the build pool on the real disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tabletop-pool-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets the worker write the file itself, through the descriptor: the same bytes, none through this thread', async () => {
    const fs = createNodeFileSystem(dir);
    const rows = entries(3000, 4);
    await build(localWriter(fs.create('local.sst'), OPTIONS), rows);
    const file = new WatchedFile(fs.create('remote.sst'));
    const writer = buildPool(1).createWriter(file, OPTIONS);
    await build(writer, rows);
    expect(file.appends).toBe(0);
    expect(file.advancedBytes).toBe(fs.size('remote.sst'));
    expect(file.size).toBe(fs.size('remote.sst'));
    expect(file.closes).toBe(1);
    expect(fs.readFile('remote.sst').equals(fs.readFile('local.sst'))).toBe(true);
  });

  it('keeps an abandoned build’s descriptor open until the worker has stopped writing through it', async () => {
    const fs = createNodeFileSystem(dir);
    const pool = buildPool(1);
    const file = new WatchedFile(fs.create('abandoned.sst'));
    const writer = pool.createWriter(file, OPTIONS);
    // Random values (they do not compress): batches in flight turn into writes of the worker after the abandon.
    const random = seededRandom(5);
    for (let i = 0; i < 4000; i++)
      writer.add(`k${String(i).padStart(6, '0')}`, Buffer.from(Array.from({ length: 300 }, () => Math.floor(random() * 256))));
    writer.abandon();
    expect(file.closes).toBe(0);
    // A file opened now must not get the abandoned file's descriptor while the worker may write through it.
    const other = fs.create('other.sst');
    expect(other.descriptor).not.toBe(file.descriptor);
    other.append(Buffer.from('mine'));
    await vi.waitFor(() => expect(file.closes).toBe(1));
    expect(pool.activeBuilds).toBe(0);
    other.close();
    expect(fs.readFile('other.sst').toString()).toBe('mine');
  });

  it('closes a direct build’s file when its worker dies, and reports it as WorkerLost', async () => {
    const fs = createNodeFileSystem(dir);
    const pool = buildPool(1);
    const file = new WatchedFile(fs.create('lost.sst'));
    const writer = pool.createWriter(file, OPTIONS);
    const failure = await buildCrashingAt(pool, writer, entries(2000, 6), 500);
    expect(failure).toBeInstanceOf(WorkerLost);
    writer.abandon();
    expect(file.closes).toBe(1);
    expect(pool.activeBuilds).toBe(0);
  });

  it('fails a build whose writes the system refuses, with the system’s errno and the file’s name', async () => {
    const fs = createNodeFileSystem(dir);
    writeFileSync(join(dir, 'read-only.sst'), '');
    const readOnly = openSync(join(dir, 'read-only.sst'), 'r');
    try {
      const file = new WatchedFile(fs.create('refused.sst'), readOnly);
      const writer = buildPool(1).createWriter(file, OPTIONS);
      const failure: unknown = await build(writer, entries(3000, 7)).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'Internal', message: expect.stringMatching(/write refused\.sst: EBADF/) });
      expect(errnoOf(failure)).toBe('EBADF');
      writer.abandon();
      expect(file.closes).toBe(1);
    } finally {
      closeSync(readOnly);
    }
  });
});
