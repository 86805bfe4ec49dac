import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { cbtWith, cbtErrors } from '../harness/cbt.js';
import type { Target } from '../harness/targets.js';

/**
 * Facts about cbt (the Go client) that constrain every server, checked
 * against a stub that answers ReadRows with hand-built messages:
 *  - it assembles a value split into several chunks of one message;
 *  - it rejects a row whose chunks span ReadRows messages
 *    ("invalid state for end of stream"), so a server must keep each row in
 *    one message (bigtable-wire.md, ReadRows rule 5);
 *  - with BIGTABLE_EMULATOR_HOST set it accepts no message over 4 MiB
 *    (gRPC's default), so cbt cannot read a row over 4 MiB from tabletop or
 *    from Google's emulator, whatever they do.
 */
type Plan = 'one-message' | 'three-messages';

describe('cbt and the framing of ReadRows responses', () => {
  let server: grpc.Server;
  let target: Target;
  let plan: Plan = 'one-message';
  let piece = 10;

  beforeAll(async () => {
    const protos = path.dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'));
    const definition = protoLoader.loadSync('google/bigtable/v2/bigtable.proto', {
      includeDirs: [protos],
      defaults: false,
      oneofs: true,
      longs: String,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      google: { bigtable: { v2: { Bigtable: { service: grpc.ServiceDefinition } } } };
    };
    server = new grpc.Server({ 'grpc.max_send_message_length': 64 * 1024 * 1024 });
    server.addService(loaded.google.bigtable.v2.Bigtable.service, {
      readRows: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        const pieces = ['a', 'b', 'c'].map((ch) => Buffer.alloc(piece, ch));
        const total = piece * pieces.length;
        // The first chunk carries the cell's key, family, qualifier, timestamp and
        // value_size; continuations carry only value (value_size until the last).
        const chunks = [
          {
            rowKey: Buffer.from('big'),
            familyName: { value: 'cf' },
            qualifier: { value: Buffer.from('v') },
            timestampMicros: '1000',
            value: pieces[0],
            valueSize: total,
          },
          { value: pieces[1], valueSize: total },
          { value: pieces[2], commitRow: true },
        ];
        if (plan === 'one-message') call.write({ chunks });
        else for (const chunk of chunks) call.write({ chunks: [chunk] });
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    target = { kind: 'tabletop', address: `127.0.0.1:${port}`, host: '127.0.0.1', port, output: () => '', stop: async () => undefined };
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  const lookup = async () => {
    const r = await cbtWith(target, {}, 'lookup', 't', 'big');
    return { code: r.code, error: cbtErrors(r.stderr), value: r.stdout.split('\n')[3] ?? '' };
  };

  it('assembles a value split into chunks of one message', async () => {
    plan = 'one-message';
    piece = 10;
    expect(await lookup()).toEqual({ code: 0, error: '', value: `    "${'a'.repeat(10)}${'b'.repeat(10)}${'c'.repeat(10)}"` });
  });

  it('rejects a row whose chunks span messages', async () => {
    plan = 'three-messages';
    piece = 10;
    expect(await lookup()).toEqual({ code: 1, error: "Reading row: invalid state for end of stream '\\x02'", value: '' });
  });

  it('rejects a message over 4 MiB', async () => {
    plan = 'one-message';
    piece = 1_500_000;
    const result = await lookup();
    expect({ ...result, error: result.error.replace(/\(\d+ vs\. 4194304\)/, '(N vs. 4194304)') }).toEqual({
      code: 1,
      error: 'Reading row: rpc error: code = ResourceExhausted desc = grpc: received message larger than max (N vs. 4194304)',
      value: '',
    });
  });
});
