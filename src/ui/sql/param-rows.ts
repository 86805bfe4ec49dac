import { SqlParamError, type SqlParamJson, paramFromText, paramName } from '../../cli/sql-params.js';

/**
 * The query box's parameter rows (name, type, value; BYTES as text or base64; or NULL) and the `params` of
 * the JSON API's request they make, each checked as `tabletop sql --param` checks its flags (the same module).
 */

export const PARAM_TYPES = [
  'STRING',
  'INT64',
  'FLOAT64',
  'BOOL',
  'BYTES',
  'TIMESTAMP',
  'DATE',
  // For `_key IN UNNEST(@keys)` and the like: a JSON array of the element's text forms.
  'ARRAY<BYTES>',
  'ARRAY<STRING>',
  'ARRAY<INT64>',
] as const;

export interface ParamRow {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly value: string;
  /** How a BYTES value (or each of an ARRAY<BYTES>'s) is written. */
  readonly bytesForm: 'text' | 'base64';
  readonly isNull: boolean;
}

/** What to write in a row's value, as the input's placeholder. */
export function placeholderOf(row: ParamRow): string | undefined {
  if (row.bytesForm === 'base64' && row.type === 'BYTES') return 'AAEC/w==';
  if (row.bytesForm === 'base64' && row.type === 'ARRAY<BYTES>') return '["AAE=", "AAI="]';
  return PLACEHOLDERS[row.type];
}

const PLACEHOLDERS: Readonly<Record<string, string>> = {
  STRING: 'text',
  INT64: '42',
  FLOAT64: '1.5',
  BOOL: 'true',
  BYTES: 'text',
  TIMESTAMP: '2024-06-01T12:00:00Z',
  DATE: '2024-06-01',
  'ARRAY<BYTES>': '["user#1", "user#2"]',
  'ARRAY<STRING>': '["a", "b"]',
  'ARRAY<INT64>': '[1, 2, 3]',
};

/** The request's params, or the rows' problems by row id. */
export function paramsOf(rows: readonly ParamRow[]): { params: Record<string, SqlParamJson>; errors: ReadonlyMap<number, string> } {
  const params: Record<string, SqlParamJson> = {};
  const errors = new Map<number, string>();
  for (const row of rows) {
    try {
      if (row.name.trim() === '') throw new SqlParamError('give the parameter a name (the query says @name)');
      const name = paramName(row.name);
      if (Object.hasOwn(params, name)) throw new SqlParamError(`@${name} is given twice`);
      params[name] = row.isNull
        ? { type: row.type, value: null }
        : paramFromText(row.type, row.value, row.type.includes('BYTES') ? row.bytesForm : 'text');
    } catch (e) {
      if (!(e instanceof SqlParamError)) throw e;
      errors.set(row.id, e.message);
    }
  }
  return { params, errors };
}
