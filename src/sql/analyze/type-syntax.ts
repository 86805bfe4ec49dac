import type { TypeExpr } from '../syntax/ast.js';
import type { SqlType } from '../types.js';
import { queryError } from '../values/errors.js';

const SCALARS = new Set(['INT64', 'FLOAT32', 'FLOAT64', 'BOOL', 'STRING', 'BYTES', 'TIMESTAMP', 'DATE', 'JSON']);
const ALIASES: Readonly<Record<string, string>> = {
  INT: 'INT64',
  INTEGER: 'INT64',
  BIGINT: 'INT64',
  BOOLEAN: 'BOOL',
  DOUBLE: 'FLOAT64',
  FLOAT: 'FLOAT64',
};

/** A written type (`ARRAY<STRUCT<a INT64>>`) as a SqlType; unknown or unsupported types are errors at their position. */
export function typeOfSyntax(t: TypeExpr): SqlType {
  switch (t.kind) {
    case 'namedType': {
      const name = ALIASES[t.name] ?? t.name;
      if (!SCALARS.has(name)) throw queryError(t.pos, `Type not found: ${t.name}`);
      return { kind: name } as SqlType;
    }
    case 'arrayType':
      return { kind: 'ARRAY', element: typeOfSyntax(t.element) };
    case 'structType':
      return { kind: 'STRUCT', fields: t.fields.map((f) => ({ name: f.name?.name ?? '', type: typeOfSyntax(f.type) })) };
    case 'mapType':
      return { kind: 'MAP', key: typeOfSyntax(t.key), value: typeOfSyntax(t.value) };
  }
}
