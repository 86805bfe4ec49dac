import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHeaderBlock } from '../../src/server/transport/h2/hpack.js';
import { RawClient, frame, settings } from '../../src/server/transport/h2/testing/raw-h2.js';
import { nodeClient } from '../harness/node-client.js';
import { startDurable } from '../durability/durable-server.js';

/**
 * Load and abuse with h2load (Debian's nghttp2-client, nghttp2's own load
 * generator) against a real server, while the official Node client reads
 * a row every 20 ms and must be served every time:
 *  - many connections: 400 clients, each with up to 8 streams, 8,000 PingAndWarm calls;
 *  - tiny windows and slow readers: 16 clients whose stream windows are 1 KiB
 *    read a whole 4 MiB table through ReadRows, 4 streams each;
 *  - at the same time, on raw sockets: 200 idle connections (preface and
 *    SETTINGS, then nothing), a SETTINGS flood, and a rapid-reset loop.
 * The server's RSS stays bounded, nothing is logged at error level, and
 * every h2load request succeeds.
 */

const MiB = 1024 * 1024;
const TABLE = 'projects/p/instances/i/tables/t';

interface H2loadResult {
  readonly total: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly errored: number;
  readonly output: string;
}

function grpcBody(fields: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0, 0, 0, 0, fields.length]), fields]);
}

/** h2load with the gRPC headers, POSTing `body` to `method`; its summary. */
function h2load(port: number, method: string, body: string, args: readonly string[]): Promise<H2loadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('h2load', [
      ...args,
      '-d',
      body,
      '-H',
      'content-type: application/grpc',
      '-H',
      'te: trailers',
      `http://127.0.0.1:${port}/google.bigtable.v2.Bigtable/${method}`,
    ]);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const m = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(output);
      if (m === null) return reject(new Error(`no summary from h2load:\n${output}`));
      resolve({ total: Number(m[1]), succeeded: Number(m[2]), failed: Number(m[3]), errored: Number(m[4]), output });
    });
  });
}

describe('h2load: load and abuse while real clients are served', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-h2load-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves every h2load request and every probe, with bounded memory, whatever else the peers do', async () => {
    const server = await startDurable({ dataDir: path.join(dir, 'data') });
    const client = nodeClient(server);
    const sockets: RawClient[] = [];
    try {
      const table = client.instance('i').table('t');
      await table.create({ families: ['cf'] });
      const value = Buffer.alloc(1024, 7);
      for (let b = 0; b < 4; b++) {
        await table.insert(
          Array.from({ length: 1000 }, (_, i) => ({ key: `row${String(b * 1000 + i).padStart(5, '0')}`, data: { cf: { q: value } } })),
        );
      }
      const ping = path.join(dir, 'ping.bin');
      const name = Buffer.from('projects/p/instances/i');
      writeFileSync(ping, grpcBody(Buffer.concat([Buffer.from([0x0a, name.length]), name])));
      const scan = path.join(dir, 'scan.bin');
      const tableName = Buffer.from(TABLE);
      writeFileSync(scan, grpcBody(Buffer.concat([Buffer.from([0x0a, tableName.length]), tableName])));
      const rssBefore = server.rssBytes();

      // The probe: a real client, a point read every 20 ms.
      let probing = true;
      const latencies: number[] = [];
      const failures: string[] = [];
      const probe = (async () => {
        while (probing) {
          const t = performance.now();
          try {
            const [row] = await table.row('row00042').get();
            if (row.id !== 'row00042') failures.push('wrong row');
          } catch (e) {
            failures.push(e instanceof Error ? e.message : String(e));
          }
          latencies.push(performance.now() - t);
          await sleep(20);
        }
      })();

      // Hostile and idle sockets.
      for (let i = 0; i < 200; i++) sockets.push(await RawClient.connect(server.port));
      const flood = await RawClient.connect(server.port);
      sockets.push(flood);
      const flooding = (async () => {
        for (let i = 0; i < 200 && !flood.closed; i++) {
          flood.send(...Array.from({ length: 100 }, () => settings([[4, 65_535]])));
          await sleep(10);
        }
      })();
      const resetter = await RawClient.connect(server.port);
      sockets.push(resetter);
      // Streams of a real method, their request not sent yet (open on the server), each reset at once.
      const pingHeaders = encodeHeaderBlock([
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', '/google.bigtable.v2.Bigtable/PingAndWarm'],
        [':authority', 'tabletop'],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
      ]);
      const resetting = (async () => {
        let id = 1;
        for (let i = 0; i < 100 && !resetter.closed; i++) {
          const burst: Buffer[] = [];
          for (let j = 0; j < 50; j++, id += 2) burst.push(frame(1, 0x4, id, pingHeaders), frame(3, 0, id, Buffer.from([0, 0, 0, 8])));
          resetter.send(...burst);
          await sleep(10);
        }
      })();

      let rssMax = rssBefore;
      const sampling = setInterval(() => (rssMax = Math.max(rssMax, server.rssBytes())), 200);
      const [many, slow] = await Promise.all([
        h2load(server.port, 'PingAndWarm', ping, ['-c', '400', '-m', '8', '-n', '8000', '-t', '1']),
        h2load(server.port, 'ReadRows', scan, ['-c', '16', '-m', '4', '-n', '64', '-w', '10', '-W', '16', '-t', '1']),
        flooding,
        resetting,
      ]);
      clearInterval(sampling);
      probing = false;
      await probe;

      expect(many, many.output).toMatchObject({ total: 8000, succeeded: 8000, failed: 0, errored: 0 });
      expect(slow, slow.output).toMatchObject({ total: 64, succeeded: 64, failed: 0, errored: 0 });
      // 64 scans of a 4 MiB table through 1 KiB windows: all of it came back.
      expect(Number(/traffic: [\d.]+MB \((\d+)\)/.exec(slow.output)?.[1])).toBeGreaterThan(64 * 4 * MiB);
      expect(failures).toEqual([]);
      expect(latencies.length).toBeGreaterThan(20);
      // The rapid-reset loop was cut off (ENHANCE_YOUR_CALM) long before its 5,000 resets were served.
      expect(resetter.closed).toBe(true);
      expect(rssMax - rssBefore, `RSS ${rssBefore / MiB} -> max ${rssMax / MiB} MiB`).toBeLessThan(512 * MiB);
      expect(server.exited()).toBe(false);
      expect(
        server
          .output()
          .split('\n')
          .filter((l) => / ERROR /.test(l)),
      ).toEqual([]);
      const sorted = [...latencies].sort((a, b) => a - b);
      console.log(
        `h2load: ${many.succeeded} PingAndWarm on 400 connections, ${slow.succeeded} ReadRows through 1 KiB windows; probe p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms over ${sorted.length} reads; server RSS ${(rssBefore / MiB).toFixed(0)} -> max ${(rssMax / MiB).toFixed(0)} MiB`,
      );
    } finally {
      for (const s of sockets) s.close();
      await client.close();
      await server.stop();
    }
  }, 300_000);
});
