import { type ByteString, printable } from '../../../model/bytes.js';
import { isPrintableAscii, isReadableText } from '../../key-shape.js';
import { type Rule, finding, percent, round, samples } from './context.js';

/** Share of the sampled keys that must hold raw bytes. */
const MIN_SHARE = 0.1;

/**
 * Raw bytes in keys (control characters, bytes that are not UTF-8 text).
 * An info: fixed-width big-endian numbers do sort right, and some designs
 * want them; but raw keys are hard to read in every tool, to type in a
 * `cbt` command, to prefix-scan by hand. The suggestion turns a binary
 * segment of 2, 4 or 8 bytes into its zero-padded decimal (same order), other
 * lengths into hex.
 */
export const nonPrintableKey: Rule = (ctx) => {
  const keys = ctx.shape.keys;
  const raw = keys.filter((k) => !isReadableText(k));
  if (raw.length === 0 || raw.length < MIN_SHARE * keys.length) return [];
  const example = raw[0]!;
  const message =
    `Keys hold raw bytes (${raw.length} of the ${keys.length} keys sampled, ${percent(raw.length / keys.length)}, e.g. ` +
    `\`${printable(example)}\`). They work, and fixed-width big-endian numbers even sort right, but every tool shows ` +
    `them escaped, and prefixes and ranges are hard to write by hand or in \`cbt\`. Not sure it is a problem: it is if ` +
    `readable text would do.`;
  return [
    finding(
      ctx,
      'non-printable-key',
      'info',
      message,
      {
        keysWithRawBytes: raw.length,
        keysSampled: keys.length,
        share: round(raw.length / keys.length),
        threshold: MIN_SHARE,
        examples: samples(raw),
      },
      `Write binary fields as fixed-width text in the same order: \`${printable(example)}\` → \`${printable(readable(example, ctx.shape.delimiter))}\` ` +
        `(big-endian integers as zero-padded decimal, other bytes as hex).`,
    ),
  ];
};

/** Each segment with raw bytes as text: 2/4/8 bytes as zero-padded decimal (the same order), else hex. */
function readable(key: ByteString, delimiter: string): ByteString {
  const segments = isPrintableAscii(key) ? [key] : key.split(delimiter);
  return segments
    .map((s) => {
      if (isReadableText(s)) return s;
      const bytes = Buffer.from(s, 'latin1');
      const digits = { 2: 5, 4: 10, 8: 20 }[bytes.length];
      if (digits === undefined) return bytes.toString('hex');
      return BigInt(`0x${bytes.toString('hex')}`)
        .toString()
        .padStart(digits, '0');
    })
    .join(delimiter);
}
