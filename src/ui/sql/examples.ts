import { RESERVED } from '../../sql/syntax/keywords.js';
import { base64ToBytes, bytesToBase64 } from '../keys.js';
import { printableUtf8 } from './show-value.js';

/**
 * The example queries the query box offers for an instance's tables: its first rows, the rows under a key
 * prefix (a BYTES parameter, planned as a key range), and the columns of a family.
 */

export interface ExampleParam {
  readonly name: string;
  readonly type: string;
  readonly value: string;
  readonly bytesForm?: 'text' | 'base64';
}

export interface Example {
  readonly table: string;
  readonly label: string;
  readonly query: string;
  /** Filled in when the example is chosen (the prefix: from the table's first key). */
  readonly params?: readonly ExampleParam[];
  readonly needsPrefix?: boolean;
}

/** A table or column name as GoogleSQL reads it: backquoted unless a plain identifier that is no reserved word. */
export function quoteIdent(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !RESERVED.has(name.toUpperCase())
    ? name
    : `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;
}

/** Up to three examples for each of the first `tables` tables. */
export function examplesFor(
  tables: readonly { readonly tableId: string; readonly families?: readonly { readonly name: string }[] }[],
  max = 3,
): Example[] {
  return tables.slice(0, max).flatMap((t) => {
    const table = quoteIdent(t.tableId);
    const family = t.families?.[0]?.name;
    const examples: Example[] = [
      { table: t.tableId, label: 'first rows', query: `SELECT * FROM ${table} LIMIT 10` },
      {
        table: t.tableId,
        label: 'key prefix',
        query: `SELECT * FROM ${table}\nWHERE STARTS_WITH(_key, @prefix)\nLIMIT 10`,
        needsPrefix: true,
      },
    ];
    if (family !== undefined) {
      const f = quoteIdent(family);
      examples.push({
        table: t.tableId,
        label: `columns of ${family}`,
        query: `SELECT _key, MAP_KEYS(${f}) AS columns FROM ${table} LIMIT 10`,
      });
    }
    return examples;
  });
}

/** The query that finds a table's first key, for the key-prefix example. */
export function firstKeyQuery(tableId: string): string {
  return `SELECT _key FROM ${quoteIdent(tableId)} LIMIT 1`;
}

/**
 * A prefix of a row key to show a prefix query with: up to and including its first separator (# : / |) in the
 * first 64 bytes, else its first half; as a BYTES parameter, text when printable, else base64.
 */
export function prefixParam(keyBase64: string | undefined): ExampleParam {
  const key = keyBase64 === undefined ? new Uint8Array() : base64ToBytes(keyBase64);
  const sep = key.slice(0, 64).findIndex((b) => b === 0x23 || b === 0x3a || b === 0x2f || b === 0x7c);
  const prefix = key.slice(0, sep >= 0 ? sep + 1 : Math.ceil(key.length / 2));
  const base64 = bytesToBase64(prefix);
  const text = printableUtf8(base64);
  return text === undefined
    ? { name: 'prefix', type: 'BYTES', value: base64, bytesForm: 'base64' }
    : { name: 'prefix', type: 'BYTES', value: text };
}

/**
 * The names of the parameters a query uses (`@name`), in order of first use, outside strings, quoted names and
 * comments (`--`, `#`, `/* *\/`): the query box offers a row for each one not given yet.
 */
export function queryParamNames(query: string): string[] {
  const names: string[] = [];
  const token =
    /'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?|`(?:\\.|[^`\\])*`?|--[^\n]*|#[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|@@?([A-Za-z_][A-Za-z0-9_]*)/g;
  for (const m of query.matchAll(token)) {
    if (m[1] !== undefined && !m[0].startsWith('@@') && !names.includes(m[1])) names.push(m[1]);
  }
  return names;
}
