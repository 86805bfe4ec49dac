import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';

/**
 * A protobufjs package loaded from its own single-file build (`dist/light`:
 * reflection and codecs without the .proto parser; `dist/minimal`: readers
 * and writers), the same sources as `protobufjs/light` and
 * `protobufjs/minimal` bundled into one file, which loads in about 5 ms
 * against 15-45 for their dozens of modules.
 *
 * Made for browsers, that build finds no `long` by itself (its `require` is
 * the bundle's own), so it is given the one its sources would load, as
 * protobufjs documents (`util.Long = Long; configure()`): int64 values stay
 * exact. It also sets a global `protobuf`, removed again here, so that a test
 * process that starts a server in it does not get one.
 *
 * `packageJson` is the path of the protobufjs package's package.json (this
 * package's own, or the one @grpc/proto-loader resolves). Typed with this
 * package's protobufjs, whose API is the same for what tabletop uses.
 */
export function loadProtobufBuild(packageJson: string, build: 'light' | 'minimal'): typeof Protobuf {
  const fromPackage = createRequire(packageJson);
  const hadGlobal = Object.hasOwn(globalThis, 'protobuf');
  const protobuf = fromPackage(`./dist/${build}/protobuf.min.js`) as typeof Protobuf;
  if (!hadGlobal) delete (globalThis as { protobuf?: unknown }).protobuf;
  protobuf.util.Long = fromPackage('long') as typeof protobuf.util.Long;
  protobuf.configure();
  return protobuf;
}
