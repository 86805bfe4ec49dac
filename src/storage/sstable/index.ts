export { createSSTableWriter, type SSTableWriter } from './sstable-writer.js';
export { openSSTable, type SSTableReader } from './sstable-reader.js';
export type { SSTableIterator } from './sstable-iterator.js';
