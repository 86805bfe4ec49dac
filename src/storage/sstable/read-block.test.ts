import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../fs/memory-fs.js';
import { createNodeFileSystem } from '../fs/node-fs.js';
import type { FileSystem } from '../fs/file-system.js';
import { BlockType, TRAILER_BYTES, encodeTrailer } from './format.js';
import { compressSync } from './lz4.js';
import { readBlock } from './read-block.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-read-block-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A body of `size` bytes that compresses: `fill` repeated, with its index every 100 bytes. */
function body(size: number, fill: number): Buffer {
  const b = Buffer.alloc(size, fill);
  for (let i = 0; i + 4 <= size; i += 100) b.writeUInt32LE(i, i);
  return b;
}

describe('readBlock', () => {
  for (const [name, make] of [
    ['the memory file system', () => new MemoryFileSystem()],
    ['the disk', () => createNodeFileSystem(mkdtempSync(path.join(dir, 'fs-')))],
  ] as const) {
    it(`returns bodies that later reads do not overwrite, compressed or not, small or large (${name})`, async () => {
      const fs: FileSystem = make();
      // Plain and compressed blocks, one larger than the scratch buffer's first size, one past its largest size.
      const bodies = [body(1000, 1), body(3000, 2), body(200_000, 3), body(5 * 1024 * 1024, 4), body(500, 5)];
      const types = [BlockType.none, BlockType.lz4, BlockType.lz4, BlockType.none, BlockType.none];
      const out = fs.create('blocks');
      const handles: { offset: number; size: number }[] = [];
      let offset = 0;
      bodies.forEach((b, i) => {
        const contents = types[i] === BlockType.lz4 ? compressSync(b) : b;
        out.appendv([contents, encodeTrailer(contents, types[i]!)]);
        handles.push({ offset, size: contents.length });
        offset += contents.length + TRAILER_BYTES;
      });
      await out.sync();
      out.close();
      const file = fs.openRead('blocks');
      const read = handles.map((h, i) => readBlock(file, h, `block ${i}`));
      // Read them all again, in another order, while holding the first results.
      const again = [...handles.keys()].reverse().map((i) => readBlock(file, handles[i]!, `block ${i}`));
      file.close();
      read.forEach((b, i) => expect(b.equals(bodies[i]!), `block ${i}`).toBe(true));
      again.reverse().forEach((b, i) => expect(b.equals(bodies[i]!), `block ${i} again`).toBe(true));
      // No two results share bytes: overwriting the first reads leaves the second ones as they were.
      for (const b of read) b.fill(0xff);
      again.forEach((b, i) => expect(b.equals(bodies[i]!), `block ${i} after the first reads were overwritten`).toBe(true));
    });
  }
});
