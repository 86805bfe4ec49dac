import http2 from 'node:http2';
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

  it('at the cap, a new client closes the connection idle the longest instead of being refused; busy ones are never closed', async () => {
    ts = await startTestServer({ tuning: { maxConnections: 3, prefaceTimeoutMillis: 10_000 } });
    const url = `http://127.0.0.1:${ts.server.port}`;
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 't', table: {} });
    ts.clients.close(); // the test's own clients hold no slot
    // Three peers that send the preface and SETTINGS, then nothing: every slot taken by idle connections.
    const idle: http2.ClientHttp2Session[] = [];
    for (let i = 0; i < 3; i++) {
      const s = http2.connect(url);
      s.on('error', () => {});
      await new Promise<void>((resolve) => s.once('remoteSettings', () => resolve()));
      idle.push(s);
      await new Promise((r) => setTimeout(r, 20)); // idle since different times: the first is the oldest
    }
    const late = rawClients(ts.server.address);
    await expect(unaryCall(late.data, 'PingAndWarm', { name: 'projects/p/instances/i' })).resolves.toEqual({});
    late.close();
    // The oldest idle peer made room; the others are still connected.
    await new Promise<void>((resolve) => (idle[0]!.closed || idle[0]!.destroyed ? resolve() : idle[0]!.once('close', () => resolve())));
    expect(idle.slice(1).map((s) => s.closed || s.destroyed)).toEqual([false, false]);
    for (const s of idle) s.destroy();
  });

  it('refuses a new connection when every open one has a call in flight', async () => {
    ts = await startTestServer({ tuning: { maxConnections: 2, prefaceTimeoutMillis: 10_000 } });
    const url = `http://127.0.0.1:${ts.server.port}`;
    ts.clients.close();
    const busy: http2.ClientHttp2Session[] = [];
    for (let i = 0; i < 2; i++) {
      const s = http2.connect(url);
      s.on('error', () => {});
      // A call whose request never ends: in flight for as long as the peer likes.
      const call = s.request(
        { ':method': 'POST', ':path': '/google.bigtable.v2.Bigtable/ReadRows', 'content-type': 'application/grpc', te: 'trailers' },
        { endStream: false },
      );
      call.on('error', () => {});
      await new Promise<void>((resolve) => s.once('remoteSettings', () => resolve()));
      busy.push(s);
    }
    await new Promise((r) => setTimeout(r, 50));
    const extra = http2.connect(url);
    extra.on('error', () => {});
    await new Promise<void>((resolve) => extra.once('close', () => resolve()));
    expect(busy.map((s) => s.closed || s.destroyed)).toEqual([false, false]);
    for (const s of busy) s.destroy();
  });
});
