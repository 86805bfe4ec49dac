import http2 from 'node:http2';
import { gcMeter } from './gc-meter.js';

/**
 * The floor for cpu-bench.ts: a node:http2 server that does nothing but
 * answer every gRPC call with one empty message and status OK (the cheapest
 * correct gRPC responder on node:http2). Same IPC protocol as bench-server.ts.
 */

const EMPTY_MESSAGE = Buffer.from([0, 0, 0, 0, 0]);
const server = http2.createServer();
server.on('stream', (stream) => {
  stream.on('data', () => {});
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true, sendDate: false } as http2.ServerStreamResponseOptions);
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(EMPTY_MESSAGE);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
const gcMillis = gcMeter();
process.on('message', (m: unknown) => {
  if (m === 'cpu') process.send?.({ cpu: process.cpuUsage(), gcMillis: gcMillis() });
  else if (m === 'stop') process.exit(0);
});
