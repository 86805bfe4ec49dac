import btree from 'sorted-btree';
import type { ByteString } from '../../model/bytes.js';
import type { Row } from '../../model/cell.js';

/**
 * sorted-btree is CommonJS with `exports.default = BTree`: Node's ESM loader
 * hands us `module.exports` (the class is at `.default`), while bundlers and
 * vitest hand us the class itself. Accept both.
 */
type BTreeClass = typeof btree.default;
const btreeExports = btree as unknown as { default?: BTreeClass };
const BTree: BTreeClass = btreeExports.default ?? (btree as unknown as BTreeClass);

/** A row as the memory store keeps it: immutable, with its byte size cached. */
export interface StoredRow extends Row {
  readonly bytes: number;
}

/** A memory store's rows: a B+ tree from row key to row, in byte order of the keys. */
export type RowTree = InstanceType<typeof BTree<ByteString, StoredRow>>;

const compareKeys = (a: ByteString, b: ByteString): number => (a < b ? -1 : a > b ? 1 : 0);

/** An empty row tree. */
export function newRowTree(): RowTree {
  return new BTree<ByteString, StoredRow>(undefined, compareKeys);
}
