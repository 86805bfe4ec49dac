import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { failure, status } from '../harness/grpc-errors.js';
import { nodeClient } from '../harness/node-client.js';
import { cutTail, flipBytes } from './damage.js';
import { type SstFile, dataRegion, readDataDir, sstFilesOfTable } from './data-dir.js';
import { type DurableServer, startDurable } from './durable-server.js';

/**
 * Damaged SSTables, with the server stopped: a flipped byte in a data block
 * of one table, a truncated file of another. After restart, reads of those
 * tables must fail with DATA_LOSS naming the file (never return wrong or
 * partial data), while a third table in the same data directory reads and
 * writes normally.
 */

// Small memtables, so that the tables' data lands in several SSTables with several blocks.
const ARGS = ['--memtable-size', '64KiB'];
const ROWS = 300;

type Contents = Map<string, Buffer>;

async function fill(table: Table): Promise<Contents> {
  const contents: Contents = new Map();
  for (let start = 0; start < ROWS; start += 50) {
    const entries = [];
    for (let i = start; i < start + 50; i++) {
      const key = `k${String(i).padStart(4, '0')}`;
      // Random bytes do not compress, so the files are as large as the data.
      const value = randomBytes(1000 + (i % 7) * 100);
      contents.set(key, value);
      entries.push({ key, data: { cf: { q: { value, timestamp: new Date(1000) } } } });
    }
    await table.insert(entries);
  }
  return contents;
}

async function readAll(table: Table): Promise<Contents> {
  const [rows] = await table.getRows({ decode: false });
  const out: Contents = new Map();
  for (const row of rows) {
    const cells = (row.data as Record<string, Record<string, { value: Buffer }[]>>)['cf']?.['q'] ?? [];
    if (cells.length !== 1 || cells[0] === undefined) throw new Error(`row ${String(row.id)} has ${cells.length} cells in cf:q`);
    out.set(String(row.id), Buffer.from(cells[0].value));
  }
  return out;
}

function expectSameContents(actual: Contents, expected: Contents): void {
  expect([...actual.keys()]).toEqual([...expected.keys()]);
  for (const [key, value] of expected) {
    if (!actual.get(key)?.equals(value)) throw new Error(`row ${key} reads back a different value`);
  }
}

describe('damaged SSTables through the real server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-damage-'));
  let server: DurableServer | undefined;
  let client: Bigtable | undefined;
  let healthyContents: Contents = new Map();
  let flipped: SstFile | undefined;
  let truncated: SstFile | undefined;

  const table = (id: string): Table => {
    if (client === undefined) throw new Error('no client');
    return client.instance('i').table(id);
  };

  const restart = async (): Promise<void> => {
    await client?.close();
    await server?.stop();
    server = await startDurable({ dataDir, args: ARGS });
    client = nodeClient(server);
  };

  beforeAll(async () => {
    server = await startDurable({ dataDir, args: ARGS });
    client = nodeClient(server);
    for (const id of ['flipped', 'truncated', 'healthy']) await table(id).create({ families: ['cf'] });
    await fill(table('flipped'));
    await fill(table('truncated'));
    healthyContents = await fill(table('healthy'));
    // Stopped and started once more, every table is in SSTables only (recovery flushes what it replays).
    await restart();
    await client?.close();
    await server?.stop();
    client = undefined;
    server = undefined;

    const view = readDataDir(dataDir);
    flipped = sstFilesOfTable(view, 'flipped')[0];
    truncated = sstFilesOfTable(view, 'truncated')[0];
    if (flipped === undefined || truncated === undefined) throw new Error(`the tables have no SSTables in ${dataDir}`);
    const region = dataRegion(flipped.path);
    if (region.end - region.start < 4096) throw new Error(`${flipped.path} has only ${region.end} bytes of data blocks`);
    flipBytes(flipped.path, Math.floor((region.start + region.end) / 2));
    cutTail(truncated.path, Math.floor(truncated.size / 3));

    server = await startDurable({ dataDir, args: ARGS });
    client = nodeClient(server);
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails reads of a table with a flipped byte in a data block with DATA_LOSS naming the file', async () => {
    const f = await failure(table('flipped').getRows());
    expect(f.code, f.message).toBe(status.DATA_LOSS);
    expect(f.message).toContain(flipped?.name);
  });

  it('fails reads of a table with a truncated SSTable with DATA_LOSS naming the file', async () => {
    const f = await failure(table('truncated').getRows());
    expect(f.code, f.message).toBe(status.DATA_LOSS);
    expect(f.message).toContain(truncated?.name);
  });

  it('keeps serving reads and writes of another table in the same data directory', async () => {
    expectSameContents(await readAll(table('healthy')), healthyContents);
    const more = new Map<string, Buffer>();
    for (let i = 0; i < 20; i++) more.set(`new${i}`, randomBytes(500));
    await table('healthy').insert([...more].map(([key, value]) => ({ key, data: { cf: { q: { value, timestamp: new Date(2000) } } } })));
    const [row] = await table('healthy').row('new7').get({ decode: false });
    expect(Buffer.from((row.data as { cf: { q: { value: Buffer }[] } }).cf.q[0]!.value).equals(more.get('new7')!)).toBe(true);
    for (const [k, v] of more) healthyContents.set(k, v);
    healthyContents = new Map([...healthyContents].sort(([a], [b]) => (a < b ? -1 : 1)));
    expectSameContents(await readAll(table('healthy')), healthyContents);
  });

  it('still reports the damage after another restart, and the other table still has everything', async () => {
    await restart();
    expect((await failure(table('flipped').getRows())).code).toBe(status.DATA_LOSS);
    expect((await failure(table('truncated').getRows())).code).toBe(status.DATA_LOSS);
    expectSameContents(await readAll(table('healthy')), healthyContents);
  });
});
