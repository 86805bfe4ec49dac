import { createHash } from 'node:crypto';
import { BYTES, STRING } from '../types.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** MD5, SHA1, SHA256, SHA512 of a STRING (its UTF-8 bytes) or BYTES: the digest as BYTES (node:crypto). */
function digest(name: string, algorithm: string): ScalarFunction {
  return defineFunction({
    name,
    signatures: [
      { params: [STRING], result: BYTES },
      { params: [BYTES], result: BYTES },
    ],
    eval: ([v]) =>
      new Uint8Array(
        createHash(algorithm)
          .update(typeof v === 'string' ? Buffer.from(v, 'utf8') : (v as Uint8Array))
          .digest(),
      ),
  });
}

export const HASH_FUNCTIONS: readonly ScalarFunction[] = [
  digest('MD5', 'md5'),
  digest('SHA1', 'sha1'),
  digest('SHA256', 'sha256'),
  digest('SHA512', 'sha512'),
];
