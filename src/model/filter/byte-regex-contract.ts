import type { ByteString } from '../bytes.js';

/**
 * A compiled full-match regex over byte strings: what compileByteRegex
 * (byte-regex.ts) returns, RE2-backed or one of the shortcuts that need no
 * RE2 call (regex-shortcuts.ts).
 */
export interface ByteRegex {
  /** True when the whole of `subject` (a byte string) matches. */
  test(subject: ByteString): boolean;
  /** The same over raw bytes (cell values). */
  testBytes(subject: Uint8Array): boolean;
  /** True when a match calls into RE2 (about a microsecond): worth caching per subject. */
  readonly costly: boolean;
}
