import { createRequire } from 'node:module';
import type * as Lz4 from 'lz4-napi';

/**
 * LZ4 block compression (lz4-napi), loaded on the first block compressed or
 * decompressed: a server starts, and many (test servers, a new data
 * directory) never write or read an SSTable, without paying for a native
 * addon (about 10 ms and several MiB of memory).
 */

let lz4: typeof Lz4 | undefined;

function loaded(): typeof Lz4 {
  lz4 ??= createRequire(import.meta.url)('lz4-napi') as typeof Lz4;
  return lz4;
}

/** LZ4-compresses a block (lz4-napi's compressSync: a raw block with its size prepended). */
export function compressSync(data: Buffer): Buffer {
  return loaded().compressSync(data);
}

/** Decompresses what compressSync wrote. */
export function uncompressSync(data: Buffer): Buffer {
  return loaded().uncompressSync(data);
}
