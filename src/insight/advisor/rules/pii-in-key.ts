import { type ByteString, printable, toUtf8 } from '../../../model/bytes.js';
import { type PiiKind, type PiiMatch, STRONG_PII, findPii } from '../pii.js';
import { type Rule, finding, rewrite } from './context.js';

/** Where PII was seen: keys, family names, column qualifiers (sampled rows). */
interface Seen {
  readonly where: 'key' | 'family' | 'qualifier';
  readonly text: ByteString;
  readonly match: PiiMatch;
}

/**
 * Personal data in row keys, family names or sampled qualifiers (pii.ts:
 * e-mail, phone, card numbers with Luhn, US SSN and UK NINO, IP addresses).
 * A warning for the personal kinds; an info for IP addresses alone (often
 * servers', unsure). Keys and names are in logs, metrics, the Key
 * Visualizer and backups, and cannot be encrypted or deleted field by field.
 */
export const piiInKey: Rule = (ctx) => {
  const seen: Seen[] = [];
  const look = (where: Seen['where'], text: ByteString): void => {
    for (const match of findPii(toUtf8(text))) seen.push({ where, text, match });
  };
  for (const k of ctx.shape.keys) look('key', k);
  for (const f of ctx.table.families) look('family', f.name);
  const qualifiers = new Set(ctx.table.rowProfiles.flatMap((r) => r.families.flatMap((f) => f.qualifiers)));
  for (const q of qualifiers) look('qualifier', q);
  if (seen.length === 0) return [];
  const kinds = [...new Set(seen.map((s) => s.match.kind))];
  const strong = kinds.some((k) => STRONG_PII.includes(k));
  const first = seen.find((s) => STRONG_PII.includes(s.match.kind)) ?? seen[0]!;
  const count = (where: Seen['where']): number => new Set(seen.filter((s) => s.where === where).map((s) => s.text)).size;
  const places = (['key', 'family', 'qualifier'] as const)
    .filter((w) => count(w) > 0)
    .map((w) => `${count(w)} ${w === 'key' ? 'row key' : w === 'family' ? 'family name' : 'column qualifier'}${count(w) === 1 ? '' : 's'}`);
  const message =
    `${kindsText(kinds)} in ${places.join(', ')} (e.g. ${first.match.kind} \`${first.match.text}\` in \`${printable(first.text)}\`). ` +
    `Keys and names are not protected like cell values: they appear in logs, monitoring, the Key Visualizer, split points ` +
    `and backups, and a person's data cannot be erased from them without rewriting the rows.` +
    (strong ? '' : " Not sure it is personal: IP addresses may be your servers'.");
  const replaced = first.text.split(first.match.text).join(`{hmac(${first.match.text})}`);
  return [
    finding(
      ctx,
      'pii-in-key',
      strong ? 'warning' : 'info',
      message,
      {
        kinds: kinds,
        keys: count('key'),
        familyNames: count('family'),
        qualifiers: count('qualifier'),
        keysSampled: ctx.shape.keys.length,
        examples: [...new Set(seen.map((s) => printable(s.text)))].slice(0, 3),
      },
      `Key by a surrogate id (a lookup table from ${first.match.kind} to id) or a keyed hash, and keep the value itself in a ` +
        `cell you can encrypt or delete: ${rewrite(first.text, replaced)}.`,
    ),
  ];
};

function kindsText(kinds: readonly PiiKind[]): string {
  const names = kinds.map((k) => (k.endsWith('s') ? `${k}es` : `${k}s`));
  const text = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  return text[0]!.toUpperCase() + text.slice(1);
}
