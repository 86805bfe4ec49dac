/**
 * The transport floor: a gRPC server on node:http2 that does nothing but
 * answer, used by `bench/profile.ts --floor` to measure what the transport
 * alone costs per call under the very same client and workload as tabletop
 * and the emulator. It shapes its responses the way tabletop's transport
 * does (HEADERS, one DATA message, trailers), stores nothing and reads
 * nothing:
 *
 *   - MutateRows: one OK status per entry of the request (entries counted
 *     from the request's top-level fields, nothing else decoded);
 *   - ReadModifyWriteRow: a fixed row (family cf, column c, an 8-byte value);
 *   - everything else (MutateRow, CheckAndMutateRow, the admin calls the
 *     profile makes): an empty message, which decodes as the default one.
 *
 * Reads are not served: an empty ReadRows answer would spare the client the
 * work a real one costs, so a floor for them would mean nothing.
 *
 *   node --import tsx bench/servers/floor-server.ts PORT
 */
import http2, { type ServerHttp2Stream } from 'node:http2';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: floor-server.ts PORT');

function varint(v: number): number[] {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field. */
function field(tag: number, bytes: Uint8Array | string): Buffer {
  const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return Buffer.concat([Buffer.from([(tag << 3) | 2, ...varint(b.length)]), b]);
}

/** Counts the MutateRowsRequest entries (field 2) by walking the top-level fields. */
function countEntries(m: Buffer): number {
  let pos = 0;
  let entries = 0;
  const read = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = m[pos++];
      if (b === undefined) throw new Error('truncated request');
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  while (pos < m.length) {
    const key = read();
    const wire = key & 7;
    if (wire === 0) read();
    else if (wire === 2) {
      const n = read();
      pos += n;
      if (key >>> 3 === 2) entries++;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return entries;
}

/** MutateRowsResponse with `n` OK entries (index i, status {}). */
function mutateRowsResponse(n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < n; i++) parts.push(field(1, Buffer.from([0x08, ...varint(i), 0x12, 0x00])));
  return Buffer.concat(parts);
}

const cell = Buffer.concat([Buffer.from([0x08, 0x01]), field(2, Buffer.alloc(8))]);
const rmwResponse = field(1, Buffer.concat([field(1, 'hot'), field(2, Buffer.concat([field(1, 'cf'), field(2, Buffer.concat([field(1, 'c'), field(2, cell)]))]))]));
const oneEntry = mutateRowsResponse(1);

function framed(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  out[0] = 0;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, 5);
  return out;
}

const HEADERS = { ':status': 200, 'content-type': 'application/grpc+proto' };
const OPTIONS = { waitForTrailers: true, sendDate: false };

function answer(stream: ServerHttp2Stream, path: string, request: Buffer): void {
  let payload: Buffer;
  if (path.endsWith('/MutateRows')) {
    const n = countEntries(request.subarray(5));
    payload = n === 1 ? oneEntry : mutateRowsResponse(n);
  } else if (path.endsWith('/ReadModifyWriteRow')) payload = rmwResponse;
  else if (path.endsWith('/ReadRows')) {
    stream.respond({ ...HEADERS, 'grpc-status': '12', 'grpc-message': 'the floor server serves no reads' }, { endStream: true });
    return;
  } else payload = Buffer.alloc(0);
  stream.respond(HEADERS, OPTIONS);
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(framed(payload));
}

const server = http2.createServer({ settings: { initialWindowSize: 4 * 1024 * 1024 } });
server.on('session', (s) => s.setLocalWindowSize(16 * 1024 * 1024));
server.on('stream', (stream, headers) => {
  const path = headers[':path'] ?? '';
  const chunks: Buffer[] = [];
  stream.on('error', () => undefined);
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => answer(stream, path, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
});
server.listen(port, 'localhost', () => console.log(`floor server on localhost:${port}`));
// It holds nothing, so it need not wait for its clients to go.
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
