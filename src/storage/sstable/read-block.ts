import { uncompressSync } from './lz4.js';
import { TabletopError, dataLoss } from '../../model/errors.js';
import { errnoOf, errnoText } from '../fs/errno.js';
import type { RandomAccessFile } from '../fs/file-system.js';
import { checkBlockBody } from './block-cursor.js';
import { BlockType, MAX_BLOCK_BYTES, TRAILER_BYTES, trailerMatches, type BlockHandle } from './format.js';

/**
 * Where the file's bytes of a block land before they are checked and decompressed: one buffer per thread, grown to
 * the largest block read, so that a block read allocates only its decompressed body (a compaction reads every
 * block of its inputs; each Buffer it drops counts toward V8's external-memory step that starts a full GC).
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
/** Blocks above this read into a buffer of their own rather than growing the scratch buffer. */
const SCRATCH_MAX = 4 * 1024 * 1024;

/**
 * Reads the block at `handle`, verifies its trailer and returns its body,
 * decompressed. Every failure of its bytes is DataLoss naming the file and offset; a read the disk fails is
 * Unavailable. The body is the caller's own (it never shares memory with another read).
 */
export function readBlock(file: RandomAccessFile, handle: BlockHandle, what: string): Buffer {
  const { offset, size } = handle;
  const bad = (reason: string): TabletopError => dataLoss(`sstable ${file.path}: ${what} at offset ${offset} (size ${size}) ${reason}`);
  if (size > MAX_BLOCK_BYTES) throw bad('is implausibly large');
  let raw: Buffer;
  try {
    const length = size + TRAILER_BYTES;
    if (length > scratch.length && length <= SCRATCH_MAX) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, 2 * length));
    raw = file.read(offset, length, length <= scratch.length ? scratch : undefined);
  } catch (e) {
    // The disk failed the read (EIO, a bad sector or a lost device): this read fails with UNAVAILABLE naming the
    // block, the server goes on, and a later read of the block may succeed (nothing marks the store failed).
    const errno = errnoOf(e);
    if (errno === undefined) throw e;
    throw new TabletopError(
      'Unavailable',
      `sstable ${file.path}: ${what} at offset ${offset} (size ${size}) could not be read (${errnoText(errno)}): ${(e as Error).message}`,
      { cause: e },
    );
  }
  if (raw.length !== size + TRAILER_BYTES) throw bad(`is truncated: read ${raw.length} of ${size + TRAILER_BYTES} bytes`);
  if (!trailerMatches(raw)) throw bad('fails its checksum');
  const type = raw[size];
  const contents = raw.subarray(0, size);
  // Uncompressed: the body is copied out of the scratch buffer (a block read into its own buffer is returned as is).
  if (type === BlockType.none) return raw.buffer === scratch.buffer ? Buffer.from(contents) : contents;
  if (type !== BlockType.lz4) throw bad(`has unknown block type ${type}`);
  if (size < 4) throw bad('is too short to be compressed');
  const bodySize = contents.readUInt32LE(0);
  if (bodySize > MAX_BLOCK_BYTES) throw bad(`claims an implausible uncompressed size ${bodySize}`);
  let body: Buffer;
  try {
    body = uncompressSync(contents);
  } catch (e) {
    throw bad(`does not decompress: ${(e as Error).message}`);
  }
  if (body.length !== bodySize) throw bad(`decompresses to ${body.length} bytes, expected ${bodySize}`);
  return body;
}

/** Reads a block that holds a body (data, index, properties) and checks its restart array. */
export function readBody(file: RandomAccessFile, handle: BlockHandle, what: string): Buffer {
  const body = readBlock(file, handle, what);
  const why = checkBlockBody(body);
  if (why !== undefined)
    throw dataLoss(`sstable ${file.path}: ${what} at offset ${handle.offset} (size ${handle.size}) is malformed: ${why}`);
  return body;
}
