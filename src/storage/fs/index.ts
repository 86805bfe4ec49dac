export type { FileSystem, WritableFile, RandomAccessFile } from './file-system.js';
export { dirname, join } from './file-system.js';
export { createNodeFileSystem } from './node-fs.js';
export { MemoryFileSystem } from './memory-fs.js';
export { createFaultFileSystem, failNth, InjectedFault, type FaultPolicy, type FsOp } from './fault-fs.js';
