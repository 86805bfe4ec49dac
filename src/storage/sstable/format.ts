/**
 * SSTable file format, version 1 (docs/format/sstable.md has the worked example).
 *
 *   file        := data_block* filter_block? properties_block index_block footer
 *   *_block     := contents[size] type:u8 crc:u32le          (the 5-byte trailer)
 *   type        := 0x00 none | 0x01 lz4                       DO NOT CHANGE
 *   crc         := mask(crc32c(contents ++ type))             (mask as in the commit log)
 *   contents    := body                                     when type = none
 *                | body_size:u32le lz4_block                when type = lz4 (LZ4 block format, no frame)
 *
 *   body        := entry* restart:u32le[n] n:u32le          (data, index and properties blocks)
 *   entry       := shared:varint unshared:varint value_size:varint key_suffix[unshared] value[value_size]
 *                  key = previous key[0, shared) ++ key_suffix; shared = 0 at every restart
 *   restart     := offset in body of an entry with shared = 0; ascending, the first is 0; n = 0 iff no entries
 *
 *   data block  := body; keys strictly ascending within and across blocks
 *   index block := body; one entry per data block, in order:
 *                  key = separator (>= the block's last key, < the next block's first key)
 *                  value = offset:varint size:varint (the data block's handle; size excludes the trailer)
 *   properties  := body; key = property name (ascending), value = its bytes (see properties.ts)
 *   filter      := bits[m] probes:u8 (see bloom.ts); absent when its footer handle has size 0
 *
 *   footer      := index:handle properties:handle filter:handle version:u32le crc:u32le magic[8]   (64 bytes)
 *   handle      := offset:u64le size:u64le
 *   crc         := mask(crc32c(footer[0, 52)))               (the handles and the version)
 *   magic       := 89 74 62 6c 73 73 74 0a ("\x89tblsst\n")  DO NOT CHANGE
 *
 * varint: LevelDB's base-128 little-endian, at most 8 bytes. Data blocks are
 * laid out back to back from offset 0, each immediately followed by its
 * trailer; the index lists them all, contiguously. A block is compressed only
 * when LZ4 saves at least 12.5% of its body.
 */
import { crc32c } from '@node-rs/crc32';
import { maskCrc, unmaskCrc } from '../wal/log-format.js';

/** DO NOT CHANGE: the format version this code writes; readers refuse newer ones. */
export const FORMAT_VERSION = 1;
/** DO NOT CHANGE. */
export const MAGIC = Buffer.from([0x89, 0x74, 0x62, 0x6c, 0x73, 0x73, 0x74, 0x0a]);
/** DO NOT CHANGE. */
export const BlockType = { none: 0, lz4: 1 } as const;
export type BlockType = (typeof BlockType)[keyof typeof BlockType];

export const TRAILER_BYTES = 5;
export const FOOTER_BYTES = 64;
const FOOTER_CRC_AT = 52;
const FOOTER_MAGIC_AT = 56;

/**
 * Largest block body accepted (writer and reader): an entry bigger than
 * this cannot be stored. Rows are at most 256 MiB, so 1 GiB leaves room.
 */
export const MAX_BLOCK_BYTES = 1 << 30;

/** Where a block lives: its contents span [offset, offset + size), the trailer follows. */
export interface BlockHandle {
  readonly offset: number;
  readonly size: number;
}

export interface Footer {
  readonly index: BlockHandle;
  readonly properties: BlockHandle;
  /** size 0: the table has no filter. */
  readonly filter: BlockHandle;
  readonly version: number;
}

/** Reads a u64le that must be a safe integer, or returns -1. */
export function readSafeU64(buf: Buffer, pos: number): number {
  const lo = buf.readUInt32LE(pos);
  const hi = buf.readUInt32LE(pos + 4);
  return hi >= 0x200000 ? -1 : hi * 0x1_0000_0000 + lo;
}

/** Writes a non-negative safe integer as u64le. */
function writeU64(buf: Buffer, pos: number, v: number): void {
  buf.writeUInt32LE((v % 0x1_0000_0000) >>> 0, pos);
  buf.writeUInt32LE(Math.floor(v / 0x1_0000_0000), pos + 4);
}

/** The trailer of a block whose contents are `contents`, stored as `type`. */
export function encodeTrailer(contents: Uint8Array, type: BlockType): Buffer {
  const t = Buffer.allocUnsafe(TRAILER_BYTES);
  t[0] = type;
  const crc = crc32c(t.subarray(0, 1), crc32c(contents));
  t.writeUInt32LE(maskCrc(crc), 1);
  return t;
}

/** True when `block` (contents ++ trailer) matches its checksum. */
export function trailerMatches(block: Buffer): boolean {
  const n = block.length - TRAILER_BYTES;
  const expected = unmaskCrc(block.readUInt32LE(n + 1));
  return crc32c(block.subarray(0, n + 1)) === expected;
}

export function encodeFooter(f: Footer): Buffer {
  const b = Buffer.alloc(FOOTER_BYTES);
  let p = 0;
  for (const h of [f.index, f.properties, f.filter]) {
    writeU64(b, p, h.offset);
    writeU64(b, p + 8, h.size);
    p += 16;
  }
  b.writeUInt32LE(f.version, 48);
  b.writeUInt32LE(maskCrc(crc32c(b.subarray(0, FOOTER_CRC_AT))), FOOTER_CRC_AT);
  MAGIC.copy(b, FOOTER_MAGIC_AT);
  return b;
}

/**
 * Decodes a footer, or returns why it is not one. Checks the magic, the
 * checksum and that every handle is a safe integer; the caller checks the
 * handles against the file.
 */
export function decodeFooter(b: Buffer): Footer | string {
  if (b.length !== FOOTER_BYTES) return `footer is ${b.length} bytes, expected ${FOOTER_BYTES}`;
  if (!b.subarray(FOOTER_MAGIC_AT).equals(MAGIC)) return 'bad magic number (not an SSTable, or truncated)';
  if (crc32c(b.subarray(0, FOOTER_CRC_AT)) !== unmaskCrc(b.readUInt32LE(FOOTER_CRC_AT))) return 'footer fails its checksum';
  const handles: BlockHandle[] = [];
  for (let p = 0; p < 48; p += 16) {
    const offset = readSafeU64(b, p);
    const size = readSafeU64(b, p + 8);
    if (offset < 0 || size < 0) return 'footer holds an out-of-range block handle';
    handles.push({ offset, size });
  }
  const [index, properties, filter] = handles as [BlockHandle, BlockHandle, BlockHandle];
  return { index, properties, filter, version: b.readUInt32LE(48) };
}
