export { openDiskEngine, DiskEngine, type DiskEngineOptions } from './disk-engine.js';
