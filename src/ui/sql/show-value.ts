import type { SqlType } from '../../sql/types.js';
import { base64ToBytes, base64ToHex } from '../keys.js';

/**
 * Result values as the query box shows them, from the JSON API's forms (src/server/http/sql-route.ts: INT64 as
 * a decimal string, BYTES as { base64, printable }, MAP as [key, value] pairs, STRUCT as an object by field
 * name or position, NULL as null) read with the column's type.
 */

/** How BYTES are shown: `text` when the bytes are printable UTF-8 and hex otherwise, or always `hex` or `base64`. */
export type BytesMode = 'text' | 'hex' | 'base64';

export interface BytesJson {
  readonly base64: string;
  readonly printable?: string;
}

/** BYTES shown in a mode: the text, and whether it is the bytes' text (else an encoding: hex `0x...` or base64). */
export function showBytes(b: BytesJson, mode: BytesMode): { text: string; encoded: boolean } {
  if (mode === 'text') {
    const text = printableUtf8(b.base64);
    if (text !== undefined) return { text, encoded: false };
  }
  if (mode === 'base64') return { text: b.base64, encoded: true };
  return { text: `0x${base64ToHex(b.base64)}`, encoded: true };
}

/** The bytes as text when they are valid UTF-8 without control characters (tab and line breaks allowed); else undefined. */
export function printableUtf8(base64: string): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(base64));
  } catch {
    return undefined;
  }
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/.test(text) ? undefined : text;
}

/**
 * A value on one line, for inside arrays, structs and maps: strings quoted, bytes as b"text" (or their
 * encoding), NULL as NULL, arrays [a, b], structs {name: v} (nameless fields by value only), maps {k: v}.
 * Without a type (one this page does not know) the JSON.
 */
export function compactText(v: unknown, t: SqlType | undefined, mode: BytesMode): string {
  if (v === null) return 'NULL';
  if (t === undefined) return JSON.stringify(v);
  switch (t.kind) {
    case 'STRING':
      return JSON.stringify(v);
    case 'BYTES': {
      const b = showBytes(v as BytesJson, mode);
      return b.encoded ? b.text : `b${JSON.stringify(b.text)}`;
    }
    case 'ARRAY':
      return `[${(v as unknown[]).map((e) => compactText(e, t.element, mode)).join(', ')}]`;
    case 'STRUCT': {
      const o = v as Record<string, unknown>;
      const parts = t.fields.map((f, i) => {
        const text = compactText(o[f.name || String(i)] ?? null, f.type, mode);
        return f.name === '' ? text : `${f.name}: ${text}`;
      });
      return `{${parts.join(', ')}}`;
    }
    case 'MAP':
      return `{${(v as [unknown, unknown][]).map(([k, e]) => `${compactText(k, t.key, mode)}: ${compactText(e, t.value, mode)}`).join(', ')}}`;
    default:
      return scalarText(v);
  }
}

/** A scalar that is not STRING or BYTES: INT64 and FLOAT as the API writes them (exact), BOOL, TIMESTAMP, DATE, JSON text. */
export function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

/** A value shown cut to `max` characters with an ellipsis; `cut` says whether it was. */
export function cutText(text: string, max: number): { text: string; cut: boolean } {
  return text.length <= max ? { text, cut: false } : { text: text.slice(0, max - 1) + '…', cut: true };
}
