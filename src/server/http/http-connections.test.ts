import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type TestServer, startTestServer } from '../testing/test-server.js';

let ts: TestServer | undefined;
afterEach(async () => {
  await ts?.stop();
  ts = undefined;
});

const connect = (port: number): Promise<net.Socket> =>
  new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
const closed = (s: net.Socket): Promise<void> => new Promise((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

describe('HTTP port connections', () => {
  it('caps open connections and closes sockets that stay silent, then serves again', async () => {
    ts = await startTestServer({ httpPort: 0, tuning: { httpMaxConnections: 3, httpIdleSocketMillis: 400 } });
    const port = ts.server.httpPort!;
    const silent = await Promise.all(Array.from({ length: 3 }, () => connect(port)));
    for (const s of silent) s.on('error', () => {});
    // A fourth is closed as it arrives: the cap holds while the three say nothing.
    const extra = await connect(port);
    extra.on('error', () => {});
    const started = Date.now();
    await closed(extra);
    expect(Date.now() - started).toBeLessThan(300);
    // The silent ones are closed once idle for the limit, and the port serves again.
    await Promise.all(silent.map(closed));
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await res.text()).toBe('ok\n');
  });
});
