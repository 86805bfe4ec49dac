export { createSSTableWriter, type SSTableWriter, type SSTableWriterOptions } from './sstable-writer.js';
export { openSSTable, type SSTableReader, type SSTableReaderOptions } from './sstable-reader.js';
export type { SSTableIterator, IteratorBounds } from './sstable-iterator.js';
export type { SSTableInfo, Compression } from './properties.js';
export { FORMAT_VERSION } from './format.js';
export { sstableLayout, formatLayout, type LayoutLine } from './layout.js';
