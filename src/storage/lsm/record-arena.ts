/**
 * Where a memtable's commit-log records live: chunks of memory that hold
 * only that memtable's records, filled in order, and freed together when
 * the memtable is (after its flush, when nothing refers to it any more).
 *
 * Without it a small record (a single-row write, an increment) was a slice of
 * Node's shared 8 KiB buffer pool, whose other slices are the request's
 * transient buffers: the record kept the whole slice alive until the flush,
 * so memory grew by 2.6–6 KiB per write (measured as minor page faults,
 * `npx tsx bench/profile.ts rmw | writes | check-and-mutate`), and on a
 * virtual machine that returns freed memory to its host each first touch of
 * a page costs ~11 µs. Records larger than a quarter of the largest chunk (a
 * bulk load's batch) get an allocation of their own, as before.
 */
const FIRST_CHUNK_BYTES = 4 * 1024;
const MAX_CHUNK_BYTES = 1024 * 1024;
const OWN_ALLOCATION_BYTES = MAX_CHUNK_BYTES / 4;

export class RecordArena {
  private chunk: Buffer = Buffer.alloc(0);
  private used = 0;
  private nextChunkBytes = FIRST_CHUNK_BYTES;
  /** Bytes of the chunks allocated so far (for tests and accounting). */
  allocatedBytes = 0;

  /**
   * `n` bytes for a record being written; `commit` then says how many were
   * used (the rest is handed out again). Nothing else may be reserved in
   * between (records are encoded synchronously, one at a time).
   */
  reserve(n: number): Buffer {
    if (n > OWN_ALLOCATION_BYTES) return Buffer.allocUnsafeSlow(n);
    if (this.used + n > this.chunk.length) {
      // Chunks double up to the largest size, so a quiet tablet's memtable holds little unused memory.
      const size = Math.max(this.nextChunkBytes, n);
      this.chunk = Buffer.allocUnsafeSlow(size);
      this.allocatedBytes += size;
      this.used = 0;
      this.nextChunkBytes = Math.min(MAX_CHUNK_BYTES, 2 * this.nextChunkBytes);
    }
    return this.chunk.subarray(this.used, this.used + n);
  }

  /** The record written in `buf` (from the last reserve, unless it outgrew it) is `bytes` long. */
  commit(buf: Buffer, bytes: number): void {
    if (buf.buffer === this.chunk.buffer && buf.byteOffset === this.chunk.byteOffset + this.used) this.used += bytes;
  }
}
