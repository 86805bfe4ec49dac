import btree from 'sorted-btree';
import type { ByteString } from '../../model/bytes.js';
import { decodeFragment, type Entry } from './fragment.js';

type BTreeClass = typeof btree.default;
const btreeExports = btree as unknown as { default?: BTreeClass };
/** sorted-btree is CommonJS (`exports.default`); Node's ESM loader and vitest disagree on the default import. */
export const BTree: BTreeClass = btreeExports.default ?? (btree as unknown as BTreeClass);

/** Bytes charged per row and per fragment on top of their content (tree slot, objects). */
export const ROW_OVERHEAD = 96;
export const FRAGMENT_OVERHEAD = 16;

const compareKeys = (a: ByteString, b: ByteString): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The fragments written to one row since the last flush. Fragments are only
 * ever appended; readers ignore entries above their snapshot sequence, so a
 * reader holding a MemRow is never disturbed by later writes.
 */
export class MemRow {
  readonly frags: Buffer[] = [];
  private decoded: Entry[] | undefined;
  private decodedFrags = 0;

  constructor(readonly key: ByteString) {}

  /** All entries of all fragments, decoded once and cached (appends extend the cache). */
  entries(): Entry[] {
    const d = (this.decoded ??= []);
    while (this.decodedFrags < this.frags.length) {
      decodeFragment(this.frags[this.decodedFrags]!, `memtable row`, d);
      this.decodedFrags++;
    }
    return d;
  }
}

export type MemTree = InstanceType<typeof BTree<ByteString, MemRow>>;

/**
 * A memtable: sorted rows of fragments, as written since the last flush.
 * Scans work on an O(1) copy-on-write clone of the tree, so rows inserted
 * after a scan opened never disturb its iteration.
 */
export class Memtable {
  private tree: MemTree = new BTree<ByteString, MemRow>(undefined, compareKeys);
  private snapshot: MemTree | undefined;
  /** Approximate memory held: fragment bytes plus per-row overhead. */
  bytes = 0;
  /** Lowest and highest sequence number held (0 when empty). */
  minSeq = 0;
  maxSeq = 0;

  get size(): number {
    return this.tree.size;
  }

  get empty(): boolean {
    return this.tree.size === 0;
  }

  /** Adds a row fragment whose entries have sequence numbers in [firstSeq, lastSeq]. */
  add(key: ByteString, fragment: Buffer, firstSeq: number, lastSeq: number): void {
    let row = this.tree.get(key);
    if (row === undefined) {
      row = new MemRow(key);
      this.tree.set(key, row);
      this.snapshot = undefined;
      this.bytes += ROW_OVERHEAD + key.length;
    }
    row.frags.push(fragment);
    this.bytes += FRAGMENT_OVERHEAD + fragment.byteLength;
    if (this.minSeq === 0 || firstSeq < this.minSeq) this.minSeq = firstSeq;
    if (lastSeq > this.maxSeq) this.maxSeq = lastSeq;
  }

  get(key: ByteString): MemRow | undefined {
    return this.tree.get(key);
  }

  /** A stable view of the rows for iteration (shared until the next new row). */
  view(): MemTree {
    return (this.snapshot ??= this.tree.clone());
  }
}
