import net from 'node:net';

/** A TCP proxy to `upstream` that cuts its first connection once `cutAfter` bytes went back to the client (tests of retries). */
export async function droppingProxy(upstream: string, cutAfter: number): Promise<{ address: string; cuts: number; close(): void }> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.slice(upstream.lastIndexOf(':') + 1))];
  const state = { cuts: 0, connections: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const first = state.connections++ === 0;
    const up = net.connect(port, host);
    sockets.add(client).add(up);
    let sent = 0;
    client.on('data', (d) => up.write(d));
    up.on('data', (d: Buffer) => {
      sent += d.length;
      if (first && sent > cutAfter) {
        // The bytes up to the cut still go through (a chunk may hold many messages).
        state.cuts++;
        client.end(d.subarray(0, d.length - (sent - cutAfter)), () => client.destroy());
        up.destroy();
        return;
      }
      client.write(d);
    });
    const end = (): void => {
      client.destroy();
      up.destroy();
    };
    client.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get cuts() {
      return state.cuts;
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
