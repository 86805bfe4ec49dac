import { describe, expect, it } from 'vitest';
import { base64ToBytes, base64ToHex, base64ToPrintable, bytesToBase64, compareKeys } from './keys.js';
import { printable } from '../model/bytes.js';

describe('keys', () => {
  const raw = new Uint8Array([0x74, 0x73, 0x23, 0x00, 0xff, 0x5c, 0x7f]);
  const b64 = Buffer.from(raw).toString('base64');

  it('decode base64 and show hex and the server’s printable form', () => {
    expect(bytesToBase64(base64ToBytes(b64))).toBe(b64);
    expect(base64ToHex(b64)).toBe('74732300ff5c7f');
    expect(base64ToPrintable(b64)).toBe(printable(Buffer.from(raw).toString('latin1')));
  });

  it('order keys as unsigned bytes, a prefix first', () => {
    const k = (...b: number[]) => new Uint8Array(b);
    expect(compareKeys(k(1, 2), k(1, 2))).toBe(0);
    expect(compareKeys(k(1), k(1, 0))).toBeLessThan(0);
    expect(compareKeys(k(0x7f), k(0x80))).toBeLessThan(0);
    expect(compareKeys(k(0xff), k(0x00, 0x01))).toBeGreaterThan(0);
  });
});
