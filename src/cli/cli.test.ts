import { mkdtempSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../index.js';
import { rawClients, unaryCall } from '../server/testing/raw-client.js';
import { runCli } from './cli.js';
import { testIo } from './testing/test-io.js';

const io = testIo;

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('tabletop CLI', () => {
  it('prints help and version', async () => {
    const h = io();
    expect(await runCli(['--help'], h.cli)).toBe(0);
    expect(h.out.join('\n')).toMatch(/tabletop serve|serve\s+Serve/);
    expect(h.out.join('\n')).toContain('--http-port N');
    const v = io();
    expect(await runCli(['--version'], v.cli)).toBe(0);
    expect(v.out).toEqual([`tabletop ${VERSION}`]);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('rejects unknown commands, flags and bad ports with exit code 2', async () => {
    for (const args of [[], ['frobnicate'], ['serve', '--nope'], ['serve', '--port', 'abc'], ['serve', '--port', '70000'], ['serve', 'extra'],
      ['serve', '--split-size', 'big'], ['serve', '--memtable-size', '-1'], ['serve', '--wal-file-size', '1XB'], ['serve', '--commit-delay', '1.5'], ['serve', '--commit-delay', '101'], ['serve', '--nodes', '0'], ['tablets'], ['tablets', 't']]) {
      const t = io();
      expect([args, await runCli(args, t.cli)]).toEqual([args, 2]);
      expect(t.err.length).toBeGreaterThan(0);
    }
  });

  it('serves on free ports, prints the export and HTTP lines, and stops cleanly on a signal', async () => {
    const t = io();
    const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-cli-'));
    const done = runCli(['serve', '--port', '0', '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], t.cli);
    await until(() => t.out.some((l) => l.startsWith('export ')));
    const exportLine = t.out.find((l) => l.startsWith('export '))!;
    expect(exportLine).toMatch(/^export BIGTABLE_EMULATOR_HOST=127\.0\.0\.1:\d+$/);
    const address = exportLine.slice('export BIGTABLE_EMULATOR_HOST='.length);
    const httpLine = t.out.find((l) => l.startsWith('HTTP: '))!;
    expect(httpLine).toMatch(/^HTTP: http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(t.out).toContain(`Storage: durable, in ${dataDir} (every acknowledged write is synced to disk)`);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['CURRENT', 'LOCK', 'wal', 'sst']));

    const clients = rawClients(address);
    await expect(unaryCall(clients.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 't', table: {} })).resolves.toMatchObject({ name: 'projects/p/instances/i/tables/t' });
    clients.close();
    const health = await fetch(new URL('healthz', httpLine.slice('HTTP: '.length)));
    expect(await health.text()).toBe('ok\n');

    t.signals.emit('signal', 'SIGTERM');
    expect(await done).toBe(0);
    expect(t.exits).toEqual([]);
    expect(readdirSync(dataDir)).not.toContain('LOCK');
    // The port is released.
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(Number(address.split(':')[1]), '127.0.0.1', resolve));
    probe.close();
  });

  it('says so when --in-memory is asked', async () => {
    const t = io();
    const done = runCli(['serve', '--port', '0', '--http-port', '0', '--in-memory'], t.cli);
    await until(() => t.out.some((l) => l.startsWith('export ')));
    expect(t.out).toContain('Storage: in memory (--in-memory): data is lost when the server stops.');
    t.signals.emit('signal', 'SIGINT');
    expect(await done).toBe(0);
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const blocker = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) => blocker.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    try {
      const t = io();
      const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-cli-'));
      expect(await runCli(['serve', '--port', String(port), '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], t.cli)).toBe(1);
      expect(readdirSync(dataDir)).not.toContain('LOCK');
      expect(t.err.join('\n')).toMatch(/could not start/);
    } finally {
      blocker.forceShutdown();
    }
  });
});
