import type { ByteString } from '../model/bytes.js';
import { invalidArgument } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { printable } from '../model/bytes.js';

/**
 * Validates and normalises split keys (CreateTable's initial_splits):
 * ascending, without duplicates. An empty key is rejected: it already
 * means "start (or end) of the table", so it cannot cut it. Keys longer
 * than a row key can be are rejected too.
 */
export function normalizeSplits(splits: readonly ByteString[]): ByteString[] {
  for (const key of splits) {
    if (key.length === 0) throw invalidArgument('Invalid initial split: a split key must not be empty');
    if (key.length > LIMITS.maxRowKeyBytes) {
      throw invalidArgument(
        `Invalid initial split "${printable(key.slice(0, 64))}...": ${key.length} bytes is longer than the row key limit of ${LIMITS.maxRowKeyBytes} bytes`,
      );
    }
  }
  const sorted = [...new Set(splits)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted;
}
