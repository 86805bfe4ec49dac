import { isIPv4, isIPv6 } from 'node:net';

/**
 * Personal data in key text: e-mail addresses, phone numbers, payment card
 * numbers (Luhn), national ids (US SSN, UK NINO), IP addresses. Careful with
 * look-alikes: a phone number needs a `+` country code or the 3-3-4 grouping
 * (an epoch `1700000000` is not one), a card number a card network's prefix
 * and the Luhn check (an epoch in µs starts with 1: no network), an IPv6
 * address a `::` or all eight groups (`12:00:00` is a time).
 */
export type PiiKind = 'e-mail address' | 'phone number' | 'card number' | 'national id' | 'IP address';

export interface PiiMatch {
  readonly kind: PiiKind;
  readonly text: string;
}

/** PII kinds that are personal beyond doubt (a warning); IP addresses are often servers' (info). */
export const STRONG_PII: readonly PiiKind[] = ['e-mail address', 'phone number', 'card number', 'national id'];

/**
 * Fixed, linear patterns (no nested quantifiers), each a whole token: not inside a run of letters and digits (a
 * hash's digits are no card number). Each match is checked further below.
 */
const E164 = /(?<![A-Za-z0-9+])\+[1-9]\d{7,14}(?![A-Za-z0-9])/g;
const PHONE_GROUPED = /(?<![A-Za-z0-9.-])(?:\+\d{1,3}[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?![A-Za-z0-9-])/g;
const CARD = /(?<![A-Za-z0-9-])\d{4}(?:[ -]?\d{4}){2}[ -]?\d{1,7}(?![A-Za-z0-9-])/g;
const SSN = /(?<![A-Za-z0-9-])(\d{3})-(\d{2})-(\d{4})(?![A-Za-z0-9-])/g;
const NINO = /(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z]{2}\d{6}[A-D](?![A-Za-z0-9])/g;
const IPV4 = /(?<![A-Za-z0-9.])\d{1,3}(?:\.\d{1,3}){3}(?![A-Za-z0-9.])/g;
const IPV6 = /(?<![A-Za-z0-9:])[0-9A-Fa-f:]{2,39}(?![A-Za-z0-9:])/g;
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/;
const EMAIL_DOMAIN = /[A-Za-z0-9.-]/;

/** The PII found in `text` (a key, a family name, a qualifier, as text). */
export function findPii(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const e of emails(text)) out.push({ kind: 'e-mail address', text: e });
  for (const m of text.matchAll(E164)) out.push({ kind: 'phone number', text: m[0] });
  for (const m of text.matchAll(PHONE_GROUPED)) if (!out.some((o) => o.text.includes(m[0]))) out.push({ kind: 'phone number', text: m[0] });
  for (const m of text.matchAll(CARD)) if (isCardNumber(m[0].replace(/[ -]/g, ''))) out.push({ kind: 'card number', text: m[0] });
  for (const m of text.matchAll(SSN)) if (isSsn(m[1]!, m[2]!, m[3]!)) out.push({ kind: 'national id', text: m[0] });
  for (const m of text.matchAll(NINO)) out.push({ kind: 'national id', text: m[0] });
  for (const m of text.matchAll(IPV4)) if (isIPv4(m[0])) out.push({ kind: 'IP address', text: m[0] });
  for (const m of text.matchAll(IPV6))
    if (m[0].includes(':') && isIPv6(m[0]) && (m[0].includes('::') || m[0].split(':').length === 8)) {
      out.push({ kind: 'IP address', text: m[0] });
    }
  return out;
}

/** `local@domain.tld` around each `@`, by walking out from it (no backtracking). */
function emails(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let a = at;
    while (a > 0 && EMAIL_LOCAL.test(text[a - 1]!)) a--;
    let b = at + 1;
    while (b < text.length && EMAIL_DOMAIN.test(text[b]!)) b++;
    const local = text.slice(a, at);
    const domain = text.slice(at + 1, b).replace(/\.+$/, '');
    const tld = domain.slice(domain.lastIndexOf('.') + 1);
    if (local !== '' && domain.includes('.') && /^[A-Za-z]{2,}$/.test(tld)) out.push(`${local}@${domain}`);
  }
  return out;
}

/** 13-19 digits with a card network's prefix (Visa, Mastercard, Amex, Discover, JCB, ...) passing the Luhn check. */
export function isCardNumber(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  if (!/^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9])|35|62)/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** A US social security number: area not 000, 666 or 9xx, group not 00, serial not 0000. */
function isSsn(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}
