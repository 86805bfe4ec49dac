import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadProtobufBuild } from './protobuf-build.js';

const require = createRequire(import.meta.url);
const fromLoader = createRequire(require.resolve('@grpc/proto-loader'));
const PACKAGES = {
  "this package's protobufjs": require.resolve('protobufjs/package.json'),
  "@grpc/proto-loader's protobufjs": fromLoader.resolve('protobufjs/package.json'),
};

describe.each(Object.entries(PACKAGES))('loadProtobufBuild of %s', (_name, packageJson) => {
  it.each(['light', 'minimal'] as const)('%s: reads int64 exactly into Node Buffers and leaves no global behind', (build) => {
    const protobuf = loadProtobufBuild(packageJson, build);
    expect(Object.hasOwn(globalThis, 'protobuf')).toBe(false);
    expect(protobuf.util.Buffer).toBe(Buffer);
    // 2^63 - 1 as a varint, then a length-delimited "ab".
    const bytes = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x02, 0x61, 0x62]);
    const reader = protobuf.Reader.create(bytes);
    expect(String(reader.int64())).toBe('9223372036854775807');
    const ab = reader.bytes();
    expect(Buffer.isBuffer(ab)).toBe(true);
    expect(ab.toString()).toBe('ab');
  });

  it('keeps a global protobuf that was there before', () => {
    const before = { mine: true };
    (globalThis as { protobuf?: unknown }).protobuf = before;
    try {
      loadProtobufBuild(packageJson, 'minimal');
      expect((globalThis as { protobuf?: unknown }).protobuf).toBe(before);
    } finally {
      delete (globalThis as { protobuf?: unknown }).protobuf;
    }
  });
});
