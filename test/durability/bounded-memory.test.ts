import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bigtable, Row, Table } from '@google-cloud/bigtable';
import { nodeClient } from '../harness/node-client.js';
import { positiveInt } from './env-knobs.js';
import { type DurableServer, startDurable } from './durable-server.js';

/**
 * Bounded memory: load a dataset several times larger than the memtable and
 * block-cache budgets given on the command line, then, in a fresh server
 * process (so that the load's high-water mark does not hide the read path's),
 * recover and read all of it back. The peak RSS of each process (VmHWM, which
 * the kernel keeps, so no sampling can miss a spike) must stay under a
 * stated budget, and every row must read back intact.
 *
 * Budget: Node, gRPC and V8 at rest (about 90 MiB here) plus a 128 MiB
 * allowance (request buffers of the batches in flight, flush and compaction
 * buffers, uncollected garbage, allocator slack), plus the block cache, plus
 * the memtables: the engine lets unflushed memtables reach twice its total
 * memtable budget (config.totalMemtableBytes) before writers stall. That
 * total is taken here as two memtables. The CLI has no flag for it (the
 * engine's default is 128 MiB), so when flushes fall behind (they wait for
 * running compactions) memtables can pile up past this budget: that is what
 * this test is there to catch.
 *
 *   TABLETOP_MEMORY_MB=1024   load more data (default 384 MiB)
 */

const MiB = 1024 * 1024;
const DATA_BYTES = positiveInt('TABLETOP_MEMORY_MB', 384) * MiB;
const MEMTABLE = 8 * MiB;
/** What a total-memtable flag would be given (see above). */
const MEMTABLE_TOTAL = 2 * MEMTABLE;
const CACHE = 16 * MiB;
const VALUE_BYTES = 32 * 1024;
const ROWS = Math.ceil(DATA_BYTES / VALUE_BYTES);
const BATCH_ROWS = 32;
const CONCURRENT_BATCHES = 4;
const ALLOWANCE = 128 * MiB;

const keyOf = (i: number): string => `row-${String(i).padStart(7, '0')}`;

/** 4 MiB of random bytes; every value is a slice of it, so values do not compress. */
const POOL = randomBytes(4 * MiB);

/** A value derived from its row key (so reads are checked without keeping the data): the key, then a slice of the pool. */
function valueOf(key: string): Buffer {
  const out = Buffer.allocUnsafe(VALUE_BYTES);
  const head = out.write(key, 'latin1');
  const offset = createHash('sha1').update(key).digest().readUInt32LE(0) % (POOL.length - VALUE_BYTES);
  POOL.copy(out, head, offset, offset + VALUE_BYTES - head);
  return out;
}

const mib = (n: number): string => `${(n / MiB).toFixed(0)} MiB`;

async function load(table: Table): Promise<void> {
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < ROWS) {
      const start = next;
      next = Math.min(ROWS, next + BATCH_ROWS);
      const entries = [];
      for (let i = start; i < next; i++) {
        const key = keyOf(i);
        entries.push({ key, data: { cf: { v: { value: valueOf(key), timestamp: new Date(1000) } } } });
      }
      await table.insert(entries);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_BATCHES }, writer));
}

/** Streams the whole table, checking every row; returns the number of rows and the first few problems. */
async function readBack(table: Table): Promise<{ count: number; bad: string[] }> {
  let count = 0;
  const bad: string[] = [];
  await new Promise<void>((resolve, reject) => {
    table
      .createReadStream({ decode: false })
      .on('data', (row: Row) => {
        const key = String(row.id);
        const cells = (row.data as { cf?: { v?: { value: Buffer }[] } }).cf?.v ?? [];
        if (key !== keyOf(count) || cells.length !== 1 || !Buffer.from(cells[0]!.value).equals(valueOf(key))) {
          if (bad.length < 5) bad.push(`row #${count}: ${key} with ${cells.length} cells`);
        }
        count++;
      })
      .on('error', reject)
      .on('end', resolve);
  });
  return { count, bad };
}

describe('bounded memory through the real server', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-memory-'));
  const args = ['--memtable-size', String(MEMTABLE), '--cache-size', String(CACHE)];
  let server: DurableServer | undefined;
  let client: Bigtable | undefined;

  const stop = async (): Promise<void> => {
    await client?.close();
    await server?.stop();
    client = undefined;
    server = undefined;
  };

  afterAll(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `keeps the server's peak RSS within its budget while loading, recovering and reading back ${mib(DATA_BYTES)} ` +
      `(--memtable-size ${mib(MEMTABLE)}, --cache-size ${mib(CACHE)})`,
    async () => {
      server = await startDurable({ dataDir, args });
      client = nodeClient(server);
      const atRest = server.rssBytes();
      const budget = atRest + ALLOWANCE + 2 * MEMTABLE_TOTAL + CACHE;
      const table = (): Table => client!.instance('i').table('big');
      await table().create({ families: [{ name: 'cf', rule: { versions: 1 } }] });

      const t0 = Date.now();
      await load(table());
      const loadMillis = Date.now() - t0;
      const loadPeak = server.peakRssBytes();
      await stop();

      // A fresh process: recovery (replaying what was not flushed), then a full scan.
      server = await startDurable({ dataDir, args });
      client = nodeClient(server);
      const recoveryPeak = server.peakRssBytes();
      const t1 = Date.now();
      const { count, bad } = await readBack(table());
      const readMillis = Date.now() - t1;
      const readPeak = server.peakRssBytes();

      console.log(
        `bounded memory: ${mib(DATA_BYTES)} in ${ROWS} rows; RSS at rest ${mib(atRest)}; peak RSS while loading ${mib(loadPeak)} (${loadMillis} ms), ` +
          `after recovery ${mib(recoveryPeak)}, while reading ${mib(readPeak)} (${readMillis} ms); budget ${mib(budget)}`,
      );
      expect(bad).toEqual([]);
      expect(count).toBe(ROWS);
      expect(loadPeak, `peak RSS while loading ${mib(DATA_BYTES)}: ${mib(loadPeak)}, budget ${mib(budget)}`).toBeLessThan(budget);
      expect(
        readPeak,
        `peak RSS while recovering and reading back ${mib(DATA_BYTES)}: ${mib(readPeak)}, budget ${mib(budget)}`,
      ).toBeLessThan(budget);
    },
    180_000,
  );
});
