import { WIRE_VARINT, createReader, readKey, skipField } from './wire.js';

/**
 * The client's `bigtable-features` request header: a base64 (standard or URL
 * alphabet) google.bigtable.v2.FeatureFlags message that says what the client
 * can handle. Only the flags tabletop acts on are decoded.
 *
 *   FeatureFlags := reverse_scans(1) bool | last_scanned_row_responses(4) bool | ...
 */
export interface FeatureFlags {
  readonly reverseScans: boolean;
  readonly lastScannedRowResponses: boolean;
}

export const NO_FEATURES: FeatureFlags = Object.freeze({ reverseScans: false, lastScannedRowResponses: false });

/** Decodes the header value; a missing or undecodable header means "no features". */
export function parseFeatureFlags(header: string | Buffer | undefined): FeatureFlags {
  if (header === undefined || header.length === 0) return NO_FEATURES;
  const bytes = typeof header === 'string' ? Buffer.from(header, 'base64') : header;
  let reverseScans = false;
  let lastScannedRowResponses = false;
  try {
    const r = createReader(bytes);
    while (r.pos < r.len) {
      const key = readKey(r);
      if (key === ((1 << 3) | WIRE_VARINT)) reverseScans = r.bool();
      else if (key === ((4 << 3) | WIRE_VARINT)) lastScannedRowResponses = r.bool();
      else skipField(r, key);
    }
  } catch {
    // A header we cannot read grants nothing; the request itself is still served.
    return NO_FEATURES;
  }
  return { reverseScans, lastScannedRowResponses };
}
