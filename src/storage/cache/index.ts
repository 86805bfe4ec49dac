export { createBlockCache, type BlockCache } from './block-cache.js';
