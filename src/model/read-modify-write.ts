import { fromBytes, printable } from './bytes.js';
import { failedPrecondition, invalidArgument } from './errors.js';
import { LIMITS } from './limits.js';
import type { ReadModifyWriteRule } from './mutation.js';
import { addWrapping, decodeInt64, encodeInt64, isInt64 } from './aggregate/index.js';

/**
 * ReadModifyWriteRow rules on one cell value (the latest version of the
 * column). The caller applies the rules of a request in order, feeding each
 * rule the value the previous rules produced, and writes the results at
 * max(now, previous timestamp) under the row lock.
 *
 *  - append: the existing value followed by the rule's bytes (the rule's
 *    bytes alone when the column has no cell);
 *  - increment: the existing value must be an 8-byte big-endian int64 (absent
 *    counts as 0). Cloud Bigtable answers any other length with
 *    FAILED_PRECONDITION "Cannot increment value '1' (family=links,
 *    qualifier=golang.org). The increment operation can only be performed on
 *    64-bit values" (googleapis/google-cloud-go#1455); tabletop words it the
 *    same way. Overflow wraps around (int64.ts).
 */

const SHOWN_BYTES = 64;

function shown(value: Uint8Array): string {
  const head = printable(fromBytes(value.subarray(0, SHOWN_BYTES)));
  return value.byteLength > SHOWN_BYTES ? `${head}... (${value.byteLength} bytes)` : head;
}

/** New value of a cell under `rule`; `existing` is undefined when the column has no cell. */
export function applyReadModifyWrite(rule: ReadModifyWriteRule, existing: Uint8Array | undefined): Uint8Array {
  switch (rule.kind) {
    case 'append': {
      const before = existing?.byteLength ?? 0;
      const size = before + rule.value.byteLength;
      if (size > LIMITS.maxValueBytes) {
        throw invalidArgument(
          `Cannot append to value (family=${rule.family}, qualifier=${printable(rule.qualifier)}): ` +
            `the result would be ${size} bytes; cell values are limited to ${LIMITS.maxValueBytes} bytes`,
        );
      }
      const out = new Uint8Array(size);
      if (existing !== undefined) out.set(existing, 0);
      out.set(rule.value, before);
      return out;
    }
    case 'increment': {
      if (!isInt64(rule.amount)) {
        throw invalidArgument(`Increment amount ${rule.amount} does not fit in int64`);
      }
      if (existing === undefined) return encodeInt64(rule.amount);
      if (existing.byteLength !== 8) {
        throw failedPrecondition(
          `Cannot increment value '${shown(existing)}' (family=${rule.family}, qualifier=${printable(rule.qualifier)}). ` +
            'The increment operation can only be performed on 64-bit values',
        );
      }
      return encodeInt64(addWrapping(decodeInt64(existing), rule.amount));
    }
  }
}
