export { createBlockCache, ENTRY_OVERHEAD_BYTES, type BlockCache, type BlockCacheOptions, type BlockCacheStats } from './block-cache.js';
