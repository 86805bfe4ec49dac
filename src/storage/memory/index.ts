import type { StorageEngine } from '../store.js';
import { MemoryEngine } from './memory-engine.js';

/** A storage engine that keeps everything in memory (`tabletop serve --in-memory`, tests). */
export function createMemoryEngine(): StorageEngine {
  return new MemoryEngine();
}
