import { describe, expect, it } from 'vitest';
import { keyHierarchy, keyPrefixes } from './key-hierarchy.js';

describe('keyPrefixes', () => {
  it('splits on # : / . | _ up to three levels', () => {
    expect(keyPrefixes('b:x/y')).toEqual(['b:', 'b:x/']);
    expect(keyPrefixes('phone#india#pke5#8923695')).toEqual(['phone#', 'phone#india#', 'phone#india#pke5#']);
    expect(keyPrefixes('com.example.www|a_b')).toEqual(['com.', 'com.example.', 'com.example.www|']);
    expect(keyPrefixes('plainkey')).toEqual([]);
  });
});

describe('keyHierarchy', () => {
  it('spans a#1, a#2 under a# and b:x/y under b: and b:x/', () => {
    expect(keyHierarchy(['a#1', 'a#2', 'b:x/y'])).toEqual([
      { depth: 1, text: 'a#', from: 0, to: 1 },
      { depth: 1, text: 'b:', from: 2, to: 2 },
      { depth: 2, text: 'b:x/', from: 2, to: 2 },
    ]);
  });

  it('breaks a span at a bucket without that prefix and skips unknown buckets', () => {
    expect(keyHierarchy([undefined, 'a#1', 'a', 'a#3', 'a#4'])).toEqual([
      { depth: 1, text: 'a#', from: 1, to: 1 },
      { depth: 1, text: 'a#', from: 3, to: 4 },
    ]);
  });

  it('gives nothing for keys without delimiters', () => {
    expect(keyHierarchy(['k0001', 'k0002', 'user42'])).toEqual([]);
  });

  it('shows non-printable bytes escaped', () => {
    expect(keyHierarchy(['\x01#a'])).toEqual([{ depth: 1, text: '\\x01#', from: 0, to: 0 }]);
  });
});
