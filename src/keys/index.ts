/**
 * The row-key builder: typed key schemas for Bigtable row keys (`tabletopdb/keys`, also exported
 * from `tabletopdb`). See schema.ts for what a schema does, segments.ts for the segments and
 * escape.ts for the escaping that keeps key order the segments' order.
 */
export {
  keySchema,
  type KeySchema,
  type KeySchemaOptions,
  type KeyInput,
  type KeyValues,
  type RowKeyRangeSpec,
  type Between,
  type Subdomains,
} from './schema.js';
export {
  string,
  integer,
  isoTimestamp,
  reversedTimestamp,
  reversedDomain,
  salt,
  REVERSED_TIMESTAMP_MAX,
  REVERSED_TIMESTAMP_WIDTH,
  type ValueSegment,
  type SaltSegment,
  type ReversedTimestampOptions,
  type IsoTimestampOptions,
} from './segments.js';
export { toClientRange, toRowRange, type RowKeyRange, type ClientBound } from './range.js';
