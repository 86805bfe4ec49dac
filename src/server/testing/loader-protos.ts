import { createRequire } from 'node:module';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { LOADER_OPTIONS, PROTO_FILES } from '../protos.js';

/**
 * The Bigtable protos as @grpc/proto-loader loads them from the pinned
 * `google-proto-files` package (the .proto files the official Node client
 * uses), with the server's loader options: the independent reference that
 * tests compare the server's codecs with, and what raw test clients are made
 * of. The server itself loads a descriptor made from these files at build
 * time instead (../bigtable-descriptor.ts), which is much faster.
 */

let cached: protoLoader.PackageDefinition | undefined;

/** The directory that holds google/bigtable/... (the root of google-proto-files). */
export function protoRoot(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('google-proto-files/package.json'));
}

/** The loaded package definition (cached; about 150 ms the first time). */
export function packageDefinition(): protoLoader.PackageDefinition {
  cached ??= protoLoader.loadSync([...PROTO_FILES], { ...LOADER_OPTIONS, includeDirs: [protoRoot()] });
  return cached;
}
