export type { Tablet, TabletRecord } from './tablet.js';
export { TabletMap } from './tablet-map.js';
export { normalizeSplits } from './splits.js';
