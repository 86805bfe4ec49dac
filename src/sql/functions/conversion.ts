import { BYTES, FLOAT32, FLOAT64, INT64, STRING } from '../types.js';
import { bytesToStringLossy } from '../values/cast.js';
import { evalError } from '../values/errors.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** Bigtable's conversions of cell bytes: big-endian numbers, lossy UTF-8, base64 and hex. */

function fixedWidth(name: string, b: Uint8Array, width: number): DataView {
  if (b.byteLength !== width) throw evalError(`${name} expects ${width} bytes, got ${b.byteLength}`);
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

export const TO_INT64 = defineFunction({
  name: 'TO_INT64',
  signatures: [
    { params: [BYTES], result: INT64 },
    { params: [INT64], result: INT64 },
  ],
  eval: ([b]) => (typeof b === 'bigint' ? b : fixedWidth('TO_INT64', b as Uint8Array, 8).getBigInt64(0)),
});

export const TO_FLOAT64 = defineFunction({
  name: 'TO_FLOAT64',
  signatures: [
    { params: [BYTES], result: FLOAT64 },
    { params: [FLOAT64], result: FLOAT64 },
  ],
  eval: ([b]) => (typeof b === 'number' ? b : fixedWidth('TO_FLOAT64', b as Uint8Array, 8).getFloat64(0)),
});

export const TO_FLOAT32 = defineFunction({
  name: 'TO_FLOAT32',
  signatures: [{ params: [BYTES], result: FLOAT32 }],
  eval: ([b]) => fixedWidth('TO_FLOAT32', b as Uint8Array, 4).getFloat32(0),
});

export const SAFE_CONVERT_BYTES_TO_STRING = defineFunction({
  name: 'SAFE_CONVERT_BYTES_TO_STRING',
  signatures: [{ params: [BYTES], result: STRING }],
  eval: ([b]) => bytesToStringLossy(b as Uint8Array),
});

export const TO_BASE64 = defineFunction({
  name: 'TO_BASE64',
  signatures: [{ params: [BYTES], result: STRING }],
  eval: ([b]) => Buffer.from(b as Uint8Array).toString('base64'),
});

export const FROM_BASE64 = defineFunction({
  name: 'FROM_BASE64',
  signatures: [{ params: [STRING], result: BYTES }],
  eval: ([s]) => {
    const t = (s as string).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t) || t.length % 4 === 1)
      throw evalError(`Failed to decode invalid base64 string: '${s as string}'`);
    return new Uint8Array(Buffer.from(t, 'base64'));
  },
});

export const TO_HEX = defineFunction({
  name: 'TO_HEX',
  signatures: [{ params: [BYTES], result: STRING }],
  eval: ([b]) => Buffer.from(b as Uint8Array).toString('hex'),
});

export const FROM_HEX = defineFunction({
  name: 'FROM_HEX',
  signatures: [{ params: [STRING], result: BYTES }],
  eval: ([s]) => {
    let t = s as string;
    if (!/^[0-9a-fA-F]*$/.test(t)) throw evalError(`Failed to decode invalid hexadecimal string: '${t}'`);
    if (t.length % 2 === 1) t = '0' + t;
    return new Uint8Array(Buffer.from(t, 'hex'));
  },
});

export const CONVERSION_FUNCTIONS: readonly ScalarFunction[] = [
  TO_INT64,
  TO_FLOAT64,
  TO_FLOAT32,
  SAFE_CONVERT_BYTES_TO_STRING,
  TO_BASE64,
  FROM_BASE64,
  TO_HEX,
  FROM_HEX,
];
