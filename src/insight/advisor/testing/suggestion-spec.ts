import { expect } from 'vitest';
import { printable } from '../../../model/bytes.js';
import { keyTransform, parseTransform } from '../simulate/transform.js';
import type { Finding, TableSample } from '../types.js';

/** The first "`before` → `after`" of a finding's suggestion (printable text). */
export function suggestedRewrite(suggestion: string): { readonly before: string; readonly after: string } | undefined {
  const m = /`([^`]+)` → `([^`]+)`/.exec(suggestion);
  return m === null ? undefined : { before: m[1]!, after: m[2]! };
}

/**
 * Asserts that a finding's `simulate` spec parses and that its suggestion
 * shows that spec at work: the "before" key is one of the table's keys, and
 * the "after" key is the spec applied to it, with the delimiter detected from
 * the keys the what-if detects it from (the stored samples, else the writes).
 */
export function expectSuggestionIsSpec(f: Finding, table: TableSample): void {
  expect(f.simulate, `${f.rule}: a simulate spec`).toBeDefined();
  const transform = parseTransform(f.simulate!);
  const rewrite = suggestedRewrite(f.suggestion);
  expect(rewrite, `${f.rule}: a rewrite in "${f.suggestion}"`).toBeDefined();
  const keys = table.keys.length > 0 ? table.keys : table.writeOrder;
  const before = keys.find((k) => printable(k) === rewrite!.before);
  expect(before, `${f.rule}: \`${rewrite!.before}\` is a key of the table`).toBeDefined();
  expect(printable(keyTransform(transform, keys).apply(before!)), `${f.rule}: ${f.simulate} on \`${rewrite!.before}\``).toBe(
    rewrite!.after,
  );
}
