import { describe, expect, it } from 'vitest';
import { findPii, isCardNumber } from './pii.js';

const kinds = (s: string): string[] => findPii(s).map((m) => m.kind);

describe('PII in key text', () => {
  it('finds e-mail addresses, phone numbers, card numbers, national ids and IP addresses', () => {
    expect(findPii('user#alice.smith@example.co.uk#2023')).toEqual([{ kind: 'e-mail address', text: 'alice.smith@example.co.uk' }]);
    expect(kinds('caller#+14155550123')).toEqual(['phone number']);
    expect(kinds('caller#(415) 555-0123')).toEqual(['phone number']);
    expect(kinds('card#4111111111111111')).toEqual(['card number']);
    expect(kinds('card#4111 1111 1111 1111#tx')).toEqual(['card number']);
    expect(kinds('ssn#123-45-6789')).toEqual(['national id']);
    expect(kinds('nino#AB123456C')).toEqual(['national id']);
    expect(kinds('ip#192.168.1.20#2023')).toEqual(['IP address']);
    expect(kinds('ip#2001:db8::1#x')).toEqual(['IP address']);
  });

  it('does not take timestamps, ids or versions for PII', () => {
    for (const s of [
      '2023-05-01T12:00:00Z#sensor123',
      'sensor#1682942400',
      'sensor#1682942400000',
      'sensor#1682942400000000',
      'order#0000000000004111',
      'sensor123#9223370354'.padEnd(30, '7'),
      'host#12:00:00#a',
      'doc#v1.2.3',
      'ssn#000-12-3456',
      'id#4111111111111112',
      'user@localhost',
      'abb4110155097846ebb4a50bf102e7fb452b32b1c1fed35397447f60f769fc6e',
      'b12352c0319b813a8e0f0f9b5329353243431299f525d6fc4e0cc153e2a790a9',
    ]) {
      expect(findPii(s), s).toEqual([]);
    }
    expect(isCardNumber('1682942400000000')).toBe(false);
  });
});
