/**
 * Garbage-collection rules of a column family (admin GcRule). A cell is
 * collectable when the rule says so; `undefined` rule (or an empty union)
 * keeps everything. Semantics, per Cloud Bigtable:
 *  - maxVersions n: keep the n newest versions of each column;
 *  - maxAge ms: collect cells whose timestamp is older than now - ms;
 *  - union: collect a cell if ANY sub-rule would collect it;
 *  - intersection: collect a cell only if EVERY sub-rule would collect it
 *    (an empty intersection collects nothing).
 */
export type GcRule =
  | { readonly kind: 'maxVersions'; readonly versions: number }
  | { readonly kind: 'maxAge'; readonly maxAgeMicros: number }
  | { readonly kind: 'union'; readonly rules: readonly GcRule[] }
  | { readonly kind: 'intersection'; readonly rules: readonly GcRule[] };
