import { fork } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { callUnary, startEchoServer } from '../../src/server/transport/testing/echo-transport.js';

/**
 * Upload time of one large request message through the h2 transport's
 * receive windows, per window setting; the server runs in a child process
 * (so client and server do not share an event loop), the client is grpc-js:
 *
 *   npx tsx bench/transport/window-bench.ts [MiB] [one-way delay ms]
 *
 * With a delay, traffic goes through a userspace TCP proxy that holds every
 * chunk for that long in each direction (a WAN-like round trip).
 */

/** A TCP proxy to `target` that delays every chunk by `delayMillis`; resolves with its address. */
function delayProxy(target: string, delayMillis: number): Promise<{ address: string; close(): void }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMillis));
      from.on('close', () => setTimeout(() => to.destroy(), delayMillis));
      from.on('error', () => {});
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

const MiB = 1024 * 1024;

if (process.argv[2] === '--serve') {
  const [stream, connection] = [Number(process.argv[3]), Number(process.argv[4])];
  const s = await startEchoServer(
    { unary: (req) => Buffer.from(String(req.length)) },
    { streamWindowBytes: stream, connectionWindowBytes: connection, maxMessageBytes: 300 * MiB },
  );
  process.send?.(s.address);
  process.on('message', () => void s.stop().then(() => process.exit(0)));
} else {
  const size = Number(process.argv[2] ?? 256) * MiB;
  const delay = Number(process.argv[3] ?? 0);
  const settings: [string, number, number][] = [
    ['64 KiB / 64 KiB (HTTP/2 defaults)', 65_535, 65_535],
    ['1 MiB / 4 MiB', MiB, 4 * MiB],
    ['4 MiB / 16 MiB', 4 * MiB, 16 * MiB],
    ['16 MiB / 64 MiB', 16 * MiB, 64 * MiB],
  ];
  const big = Buffer.alloc(size, 1);
  for (let round = 0; round < 3; round++) {
    for (const [name, stream, connection] of settings) {
      const child = fork(fileURLToPath(import.meta.url), ['--serve', String(stream), String(connection)], {
        execArgv: ['--import', 'tsx'],
      });
      const direct = await new Promise<string>((resolve) => child.once('message', (m) => resolve(m as string)));
      const proxy = delay > 0 ? await delayProxy(direct, delay) : undefined;
      const address = proxy?.address ?? direct;
      const client = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
      await callUnary(client, Buffer.from('warm'));
      const t0 = performance.now();
      const r = await callUnary(client, big);
      const ms = performance.now() - t0;
      if (r.response?.toString() !== String(size)) throw new Error(`bad response ${JSON.stringify(r)}`);
      console.log(
        `${name.padEnd(34)} ${delay} ms delay: ${(size / MiB).toFixed(0)} MiB in ${ms.toFixed(0).padStart(5)} ms (${((size / MiB / ms) * 1000).toFixed(0)} MiB/s)`,
      );
      client.close();
      proxy?.close();
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    }
  }
}
