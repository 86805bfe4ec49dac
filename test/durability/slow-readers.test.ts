import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeFrame, encodeSettings, encodeWindowUpdate } from '../../src/server/transport/h2/frame-codec.js';
import { encodeHeaderBlock } from '../../src/server/transport/h2/hpack.js';
import { nodeClient } from '../harness/node-client.js';
import { startDurable } from './durable-server.js';

/**
 * Clients that open a ReadRows of a whole table and never read a byte of the
 * answer (their sockets paused, with the 4 MiB stream windows the Go client
 * grows to): the server's memory for them is bounded by --response-buffer
 * plus one ReadRows message (up to 1 MiB) per stalled call, a client that
 * reads is served meanwhile, and once they go, the memory is given back.
 * Before the budget, 200 of them held about 3 MiB each (600 MiB), and kept
 * it after they left.
 */

const MiB = 1024 * 1024;
const ROWS = 40_000;
const PEERS = 200;
const BUDGET = 32 * MiB;
const TABLE = 'projects/p/instances/i/tables/t';

/** A ReadRows of the whole table, as a paused client sends it: preface, settings, one stream, its request. */
function silentReadRows(port: number): net.Socket {
  const name = Buffer.from(TABLE);
  const request = Buffer.concat([Buffer.from([0x0a, name.length]), name]); // ReadRowsRequest.table_name
  const message = Buffer.concat([Buffer.from([0, 0, 0, 0, request.length]), request]);
  const headers = encodeHeaderBlock([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', '/google.bigtable.v2.Bigtable/ReadRows'],
    [':authority', 'tabletop'],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
  ]);
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    Buffer.concat([
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
      encodeSettings([[4, 4 * MiB]]), // SETTINGS_INITIAL_WINDOW_SIZE
      encodeWindowUpdate(0, 64 * MiB),
      encodeFrame(1, 4, 1, headers), // HEADERS, END_HEADERS
      encodeFrame(0, 1, 1, message), // DATA, END_STREAM
    ]),
  );
  socket.pause();
  return socket;
}

describe('slow readers', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-slow-readers-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`${PEERS} ReadRows that are never read hold at most --response-buffer plus a message each, and give it back when they go`, async () => {
    const server = await startDurable({ dataDir, args: ['--response-buffer', '32MiB'] });
    const client = nodeClient(server);
    try {
      const table = client.instance('i').table('t');
      await table.create({ families: ['cf'] });
      const value = Buffer.alloc(1024, 7);
      for (let b = 0; b < ROWS / 1000; b++) {
        const rows = [];
        for (let i = 0; i < 1000; i++) rows.push({ key: `row${String(b * 1000 + i).padStart(6, '0')}`, data: { cf: { q: value } } });
        await table.insert(rows);
      }
      // The load's garbage gone, or at least settled: the baseline.
      await sleep(2000);
      const before = server.rssBytes();
      const peers = Array.from({ length: PEERS }, () => silentReadRows(server.port));
      // RSS for as long as they hang there.
      let peak = 0;
      for (let t = 0; t < 8; t++) {
        await sleep(500);
        peak = Math.max(peak, server.rssBytes());
      }
      // A client that reads is served meanwhile.
      const [rows] = await table.getRows({ limit: 500 });
      expect(rows.length).toBe(500);
      const grown = peak - before;
      // The budget, one 1 MiB message per stalled call (and its frame headers), and 48 MiB for everything else.
      expect(grown, `RSS grew from ${before / MiB} to ${peak / MiB} MiB`).toBeLessThan(BUDGET + PEERS * 1.1 * MiB + 48 * MiB);
      for (const p of peers) p.destroy();
      // Given back: within a few seconds RSS is back near where it was.
      await expect.poll(() => server.rssBytes() - before, { timeout: 20_000, interval: 500 }).toBeLessThan(Math.min(64 * MiB, grown / 3));
    } finally {
      await client.close();
      await server.stop();
    }
  }, 120_000);
});
