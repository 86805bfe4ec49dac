/**
 * The TRANSFORM grammar as the what-if page explains it (the contract's
 * comment in src/insight/advisor/types.ts, for people: the server's 400
 * answer to a bad transform says the same).
 */
export const TRANSFORM_HELP: readonly { readonly step: string; readonly does: string }[] = [
  { step: 'salt:N', does: 'prefix {hash(key) % N}, zero-padded, then the delimiter' },
  { step: 'salt:N@S', does: "the same, hashing segment S only (keeps one entity's rows together)" },
  { step: 'promote:S', does: 'move segment S to the front' },
  { step: 'reverse:S', does: 'reverse segment S: a dotted domain by labels (www.example.com → com.example.www), else its characters' },
  { step: 'reverse-timestamp:S', does: 'replace the timestamp in segment S (epoch s/ms/µs or ISO) by MAX − t, zero-padded' },
  { step: 'pad:S:W | pad:W', does: 'zero-pad the numbers of segment S (or of every segment) to width W' },
  { step: 'delimiter=X', does: 'as the first step: split on X (else the most common of # : / | _ .)' },
];

export const TRANSFORM_INTRO =
  'Steps separated by commas, applied left to right to each key split into segments on its delimiter; segments count from 1. ' +
  'Example: salt:8@2,promote:2.';
