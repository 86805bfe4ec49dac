/**
 * The transport floor: a gRPC server on node:http2 that does nothing but
 * answer, used by `bench/profile.ts --floor` and `transport/cpu-bench.ts
 * --floor` to measure what the transport alone costs per call under the very
 * same client and workload as tabletop and the emulator. It shapes its
 * responses the way tabletop's transport does (HEADERS, one DATA message,
 * trailers), stores nothing and reads nothing:
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
 * With a directory (the durable floor), a MutateRows is answered only once
 * its bytes are where the Bigtable paper's design must put them, at the
 * least cost: appended to a commit log with one fdatasync per group of
 * waiting requests (group commit), then, every 32 MiB (tabletop's default
 * memtable budget), written once more to a new file and fdatasynced (the
 * flush), with a crc32c over the bytes each time. Nothing is decoded,
 * sorted, indexed or compacted, so this is a floor for any engine that logs
 * and flushes each byte once, not a design. A flush size of 0 makes it a
 * commit log alone: the floor of a design that writes each byte once.
 *
 *   node --import tsx bench/servers/floor-server.ts PORT [DIR [FLUSH_BYTES]]
 *
 * `transport/cpu-bench.ts --floor` forks it with `--ipc` instead of a port:
 * it then listens on a free port of 127.0.0.1 and reports to its parent over
 * IPC (ipc-child.ts), as cpu-bench's tabletop servers do.
 */
import { crc32c } from '@node-rs/crc32';
import fs from 'node:fs';
import http2, { type ServerHttp2Stream } from 'node:http2';
import path from 'node:path';
import { reportToParent } from './ipc-child.js';

const ipc = process.argv[2] === '--ipc';
const port = ipc ? 0 : Number(process.argv[2]);
if (!ipc && (!Number.isInteger(port) || port <= 0)) throw new Error('usage: floor-server.ts PORT [DIR [FLUSH_BYTES]] | --ipc');
const dir = ipc ? undefined : process.argv[3];
const flushBytes = Number(process.argv[4] ?? 32 * 1024 * 1024);
if (!Number.isInteger(flushBytes) || flushBytes < 0) throw new Error(`FLUSH_BYTES must be a whole number of bytes, not ${process.argv[4]}`);

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

/**
 * Counts the MutateRowsRequest entries (field 2) by walking the top-level
 * fields of a gRPC message (5-byte prefix first) as it arrived, in pieces.
 */
function countEntries(parts: readonly Buffer[]): number {
  let part = 0;
  let pos = 0;
  const byte = (): number | undefined => {
    while (part < parts.length && pos >= parts[part]!.length) {
      pos -= parts[part]!.length;
      part++;
    }
    return parts[part]?.[pos++];
  };
  const read = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = byte();
      if (b === undefined) throw new Error('truncated request');
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  pos = 5;
  let entries = 0;
  while (byte() !== undefined) {
    pos--;
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
const rmwResponse = field(
  1,
  Buffer.concat([field(1, 'hot'), field(2, Buffer.concat([field(1, 'cf'), field(2, Buffer.concat([field(1, 'c'), field(2, cell)]))]))]),
);
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

function answer(stream: ServerHttp2Stream, path: string, request: Buffer[]): void {
  let payload: Buffer;
  if (durable !== undefined && path.endsWith('/MutateRows')) {
    const n = countEntries(request);
    durable.append(request, () => {
      stream.respond(HEADERS, OPTIONS);
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(framed(mutateRowsResponse(n)));
    });
    return;
  }
  if (path.endsWith('/MutateRows')) {
    const n = countEntries(request);
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

/** The durable floor: a commit log with group commit, and a flush of every `flushBytes` logged (none when 0). */
class DurableFloor {
  private readonly log: number;
  private pending: Buffer[] = [];
  private waiters: (() => void)[] = [];
  private syncing = false;
  private unflushed: Buffer[] = [];
  private unflushedBytes = 0;
  private files = 0;

  constructor(private readonly dir: string) {
    this.log = fs.openSync(path.join(dir, 'log'), 'a');
  }

  append(pieces: readonly Buffer[], done: () => void): void {
    for (const b of pieces) this.pending.push(b);
    this.waiters.push(done);
    if (!this.syncing) this.commit();
  }

  private commit(): void {
    const group = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    for (const b of group) crc32c(b);
    writeAll(this.log, group);
    this.syncing = true;
    fs.fdatasync(this.log, (err) => {
      if (err) throw err;
      this.syncing = false;
      for (const w of waiters) w();
      if (flushBytes > 0) {
        for (const b of group) this.unflushed.push(b);
        this.unflushedBytes += group.reduce((n, b) => n + b.length, 0);
        if (this.unflushedBytes >= flushBytes) this.flush();
      }
      if (this.pending.length > 0) this.commit();
    });
  }

  private flush(): void {
    const parts = this.unflushed;
    this.unflushed = [];
    this.unflushedBytes = 0;
    const fd = fs.openSync(path.join(this.dir, `flush-${this.files++}`), 'w');
    for (const b of parts) crc32c(b);
    writeAll(fd, parts);
    fs.fdatasync(fd, (err) => {
      if (err) throw err;
      fs.closeSync(fd);
    });
  }
}
/** Writes `parts` at the end of `fd`, IOV_MAX (1,024) at a time; a short write (which regular files do not make) is an error. */
function writeAll(fd: number, parts: readonly Buffer[]): void {
  for (let i = 0; i < parts.length; i += 1024) {
    const batch = parts.slice(i, i + 1024);
    const want = batch.reduce((n, b) => n + b.length, 0);
    const wrote = fs.writevSync(fd, batch);
    if (wrote !== want) throw new Error(`short write: ${wrote} of ${want} bytes`);
  }
}
const durable = dir === undefined ? undefined : new DurableFloor(dir);

const server = http2.createServer({ settings: { initialWindowSize: 4 * 1024 * 1024 } });
server.on('session', (s) => s.setLocalWindowSize(16 * 1024 * 1024));
server.on('stream', (stream, headers) => {
  const path = headers[':path'] ?? '';
  const chunks: Buffer[] = [];
  stream.on('error', () => undefined);
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => answer(stream, path, chunks));
});
if (ipc) server.listen(0, '127.0.0.1', () => reportToParent((server.address() as { port: number }).port, () => Promise.resolve()));
else server.listen(port, 'localhost', () => console.log(`floor server on localhost:${port}`));
// It holds nothing, so it need not wait for its clients to go.
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
