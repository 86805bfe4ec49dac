import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { parseFeatureFlags } from './feature-flags.js';

const flags = (fields: [number, boolean][]): Buffer => {
  const w = protobuf.Writer.create();
  for (const [f, v] of fields) w.uint32((f << 3) | 0).bool(v);
  return Buffer.from(w.finish());
};

describe('parseFeatureFlags', () => {
  it('reads reverse_scans and last_scanned_row_responses from base64 and base64url', () => {
    const bytes = flags([
      [1, true],
      [3, true],
      [4, true],
      [8, true],
    ]);
    expect(parseFeatureFlags(bytes.toString('base64'))).toEqual({ reverseScans: true, lastScannedRowResponses: true });
    expect(parseFeatureFlags(bytes.toString('base64url'))).toEqual({ reverseScans: true, lastScannedRowResponses: true });
    expect(parseFeatureFlags(flags([[4, true]]).toString('base64'))).toEqual({ reverseScans: false, lastScannedRowResponses: true });
    expect(parseFeatureFlags(flags([[1, false]]).toString('base64'))).toEqual({ reverseScans: false, lastScannedRowResponses: false });
  });

  it('grants nothing for a missing or undecodable header', () => {
    expect(parseFeatureFlags(undefined)).toEqual({ reverseScans: false, lastScannedRowResponses: false });
    expect(parseFeatureFlags('')).toEqual({ reverseScans: false, lastScannedRowResponses: false });
    expect(parseFeatureFlags(Buffer.from([0x08]).toString('base64'))).toEqual({ reverseScans: false, lastScannedRowResponses: false });
    expect(parseFeatureFlags('!!!not base64')).toEqual({ reverseScans: false, lastScannedRowResponses: false });
  });
});
