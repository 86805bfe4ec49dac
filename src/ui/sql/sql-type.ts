import type { SqlType } from '../../sql/types.js';

/**
 * A result column's type from the text the JSON API gives it (src/sql/types.ts typeText: `INT64`,
 * `ARRAY<STRING>`, `MAP<BYTES, BYTES>`, `STRUCT<a INT64, FLOAT64>`), so that values are shown by their type
 * rather than guessed from their JSON shape. undefined: text this page does not know (shown as plain JSON).
 */
export function parseSqlType(text: string): SqlType | undefined {
  const t = text.trim();
  const open = t.indexOf('<');
  if (open < 0) return SCALARS.has(t) ? ({ kind: t } as SqlType) : undefined;
  if (!t.endsWith('>')) return undefined;
  const head = t.slice(0, open).trim();
  const args = splitTopLevel(t.slice(open + 1, -1), ',');
  if (args === undefined) return undefined;
  if (head === 'ARRAY' && args.length === 1) {
    const element = parseSqlType(args[0]!);
    return element && { kind: 'ARRAY', element };
  }
  if (head === 'MAP' && args.length === 2) {
    const key = parseSqlType(args[0]!);
    const value = parseSqlType(args[1]!);
    return key && value && { kind: 'MAP', key, value };
  }
  if (head === 'STRUCT') {
    const fields: { name: string; type: SqlType }[] = [];
    for (const f of args) {
      // `name TYPE` (the type after the last space outside <>), or a nameless field's TYPE alone.
      const space = lastTopLevelSpace(f.trim());
      const name = space < 0 ? '' : f.trim().slice(0, space);
      const type = parseSqlType(space < 0 ? f : f.trim().slice(space + 1));
      if (type === undefined) return undefined;
      fields.push({ name, type });
    }
    return { kind: 'STRUCT', fields };
  }
  return undefined;
}

const SCALARS = new Set(['INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE', 'JSON']);

/** Parts of `s` between `sep`s outside <...>; undefined when the brackets do not balance. */
function splitTopLevel(s: string, sep: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '<') depth++;
    else if (c === '>' && --depth < 0) return undefined;
    else if (c === sep && depth === 0) {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(s.slice(from));
  return parts;
}

function lastTopLevelSpace(s: string): number {
  let depth = 0;
  let last = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (c === ' ' && depth === 0) last = i;
  }
  return last;
}
