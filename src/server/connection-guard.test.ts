import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawClients, unaryCall } from './testing/raw-client.js';
import { type TestServer, startTestServer } from './testing/test-server.js';

let ts: TestServer | undefined;
afterEach(async () => {
  await ts?.stop();
  ts = undefined;
});

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

const closed = (s: net.Socket): Promise<void> => new Promise((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

describe('connection guard', () => {
  it('resets connections that send nothing, while real calls keep working', async () => {
    ts = await startTestServer({ tuning: { prefaceTimeoutMillis: 150 } });
    // The instance exists once a table is created in it (PingAndWarm answers NOT_FOUND before).
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 't', table: {} });
    const silent = await Promise.all(Array.from({ length: 50 }, () => connect(ts!.server.port)));
    for (const s of silent) s.on('error', () => {});
    await expect(unaryCall(ts.clients.data, 'PingAndWarm', { name: 'projects/p/instances/i' })).resolves.toEqual({});
    const started = Date.now();
    await Promise.all(silent.map(closed));
    expect(Date.now() - started).toBeLessThan(5_000);
    // A client that connects now still gets served after the silent ones are gone.
    const late = rawClients(ts.server.address);
    await expect(unaryCall(late.data, 'PingAndWarm', { name: 'projects/p/instances/i' })).resolves.toEqual({});
    late.close();
  });

  it('caps the number of open connections', async () => {
    ts = await startTestServer({ tuning: { maxConnections: 3, prefaceTimeoutMillis: 10_000 } });
    const sockets = await Promise.all(Array.from({ length: 3 }, () => connect(ts!.server.port)));
    const started = Date.now();
    const extra = await connect(ts.server.port).catch(() => undefined);
    if (extra !== undefined) {
      extra.on('error', () => {});
      await closed(extra); // accepted by the kernel, then dropped by the server at once
    }
    expect(Date.now() - started).toBeLessThan(2_000); // long before the 10 s silence deadline
    expect(sockets.every((s) => !s.destroyed)).toBe(true);
    for (const s of sockets) s.destroy();
  });
});
