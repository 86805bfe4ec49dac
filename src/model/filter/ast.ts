import type { ByteString } from '../bytes.js';

/** One end of a range over bytes (qualifiers, values). */
export type ByteBound =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'closed'; readonly value: ByteString }
  | { readonly kind: 'open'; readonly value: ByteString };

/**
 * The RowFilter language of the Data API, as a discriminated union.
 * Regex patterns are byte strings (RE2 syntax, matched against raw bytes).
 * Timestamp range: `[start, end)` microseconds, end undefined = unbounded.
 */
export type RowFilter =
  | { readonly kind: 'chain'; readonly filters: readonly RowFilter[] }
  | { readonly kind: 'interleave'; readonly filters: readonly RowFilter[] }
  | {
      readonly kind: 'condition';
      readonly predicate: RowFilter | undefined;
      readonly trueFilter: RowFilter | undefined;
      readonly falseFilter: RowFilter | undefined;
    }
  | { readonly kind: 'sink' }
  | { readonly kind: 'passAll' }
  | { readonly kind: 'blockAll' }
  | { readonly kind: 'rowKeyRegex'; readonly pattern: ByteString }
  | { readonly kind: 'rowSample'; readonly probability: number }
  | { readonly kind: 'familyRegex'; readonly pattern: string }
  | { readonly kind: 'qualifierRegex'; readonly pattern: ByteString }
  | {
      readonly kind: 'columnRange';
      readonly family: string;
      readonly start: ByteBound;
      readonly end: ByteBound;
    }
  | { readonly kind: 'timestampRange'; readonly start: number; readonly end: number | undefined }
  | { readonly kind: 'valueRegex'; readonly pattern: ByteString }
  | { readonly kind: 'valueRange'; readonly start: ByteBound; readonly end: ByteBound }
  | { readonly kind: 'cellsPerRowOffset'; readonly offset: number }
  | { readonly kind: 'cellsPerRowLimit'; readonly limit: number }
  | { readonly kind: 'cellsPerColumnLimit'; readonly limit: number }
  | { readonly kind: 'stripValue' }
  | { readonly kind: 'applyLabel'; readonly label: string }
  | { readonly kind: 'valueBitmask'; readonly mask: Uint8Array };
