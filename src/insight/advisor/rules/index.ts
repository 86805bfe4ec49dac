import type { RuleId } from '../types.js';
import type { Rule } from './context.js';
import { filterScan } from './filter-scan.js';
import { hashedKey } from './hashed-key.js';
import { hotRow } from './hot-row.js';
import { hotTablet } from './hot-tablet.js';
import { largeRow } from './large-row.js';
import { longKey } from './long-key.js';
import { lowCardinalityPrefix } from './low-cardinality-prefix.js';
import { nonPrintableKey } from './non-printable-key.js';
import { piiInKey } from './pii-in-key.js';
import { sequentialKey } from './sequential-key.js';
import { timestampLeadingKey } from './timestamp-leading-key.js';
import { tooManyFamilies } from './too-many-families.js';
import { tooManyTables } from './too-many-tables.js';
import { unboundedVersions } from './unbounded-versions.js';
import { unpaddedNumber } from './unpadded-number.js';
import { unreversedDomain } from './unreversed-domain.js';

export { type Rule, type RuleContext, tableShape } from './context.js';

/** Every rule by its id. */
export const RULES: Readonly<Record<RuleId, Rule>> = {
  'timestamp-leading-key': timestampLeadingKey,
  'sequential-key': sequentialKey,
  'hashed-key': hashedKey,
  'unpadded-number': unpaddedNumber,
  'long-key': longKey,
  'non-printable-key': nonPrintableKey,
  'pii-in-key': piiInKey,
  'hot-row': hotRow,
  'too-many-families': tooManyFamilies,
  'too-many-tables': tooManyTables,
  'large-row': largeRow,
  'unreversed-domain': unreversedDomain,
  'unbounded-versions': unboundedVersions,
  'filter-scan': filterScan,
  'low-cardinality-prefix': lowCardinalityPrefix,
  'hot-tablet': hotTablet,
};

/**
 * One cause, one finding: a rule's findings are dropped for a table where a
 * rule listed here found the cause. Timestamp-leading keys are sequential
 * too (timestamp-leading-key names them); a hot tablet is what a hot row or
 * sequential keys make (those name the fix); a busy leading value may be one
 * hot row's, or today's date at the front (timestamp-leading-key).
 */
export const EXPLAINED_BY: Readonly<Partial<Record<RuleId, readonly RuleId[]>>> = {
  'sequential-key': ['timestamp-leading-key'],
  'hot-tablet': ['hot-row', 'timestamp-leading-key', 'sequential-key'],
  'low-cardinality-prefix': ['hot-row', 'timestamp-leading-key', 'sequential-key'],
};
