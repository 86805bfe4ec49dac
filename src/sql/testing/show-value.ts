import { SqlDate, SqlJson, SqlMap, SqlStruct, SqlTimestamp, type SqlValue } from '../types.js';
import { formatFloat } from '../values/cast.js';
import { formatDate, formatTimestamp } from '../values/time.js';

/** A value as the evaluator tests print it: SQL-literal-like, unambiguous (`b"\x00"`, `"s"`, `NULL`, `[1, 2]`). */
export function showValue(v: SqlValue): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'number':
      return formatFloat(v) + (Number.isInteger(v) ? '.0' : '');
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof Uint8Array) {
    let s = 'b"';
    for (const c of v)
      s += c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
    return s + '"';
  }
  if (v instanceof SqlTimestamp) return `TIMESTAMP "${formatTimestamp(v)}"`;
  if (v instanceof SqlDate) return `DATE "${formatDate(v)}"`;
  if (v instanceof SqlJson) return `JSON ${v.text}`;
  if (v instanceof SqlStruct) return `(${v.values.map(showValue).join(', ')})`;
  if (v instanceof SqlMap) return `{${v.entries.map(([k, x]) => `${showValue(k)}: ${showValue(x)}`).join(', ')}}`;
  return `[${(v as readonly SqlValue[]).map(showValue).join(', ')}]`;
}
