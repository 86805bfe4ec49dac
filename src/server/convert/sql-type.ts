import { invalidArgument } from '../../model/errors.js';
import type { SqlType } from '../../sql/types.js';
import type { PType } from './proto-types.js';
import { snake, typeKind as kindOf } from './value-type.js';

/**
 * google.bigtable.v2.Type ↔ SqlType, for SQL: the declared types of
 * PrepareQuery's `param_types` (in) and the result schema's ProtoSchema
 * columns (out). Encodings are ignored on the way in and left unset on the way
 * out (the clients read only the kind). JSON has no wire type of its own: a
 * JSON column goes out as STRING (its canonical text).
 */

/** A declared type from the wire; `what` names it in errors (e.g. "param_types[id]"). */
export function sqlTypeFromProto(t: PType | null | undefined, what: string): SqlType {
  if (t == null) throw invalidArgument(`${what}: a type is required`);
  switch (kindOf(t)) {
    case 'bytesType':
      return { kind: 'BYTES' };
    case 'stringType':
      return { kind: 'STRING' };
    case 'int64Type':
      return { kind: 'INT64' };
    case 'float32Type':
      return { kind: 'FLOAT32' };
    case 'float64Type':
      return { kind: 'FLOAT64' };
    case 'boolType':
      return { kind: 'BOOL' };
    case 'timestampType':
      return { kind: 'TIMESTAMP' };
    case 'dateType':
      return { kind: 'DATE' };
    case 'arrayType': {
      const a = t.arrayType as { elementType?: PType | null } | null;
      return { kind: 'ARRAY', element: sqlTypeFromProto(a?.elementType, `${what}.array_type.element_type`) };
    }
    case 'structType': {
      const s = t.structType as { fields?: { fieldName?: string | null; type?: PType | null }[] | null } | null;
      const fields = (s?.fields ?? []).map((f, i) => ({
        name: f.fieldName ?? '',
        type: sqlTypeFromProto(f.type, `${what}.struct_type.fields[${i}].type`),
      }));
      return { kind: 'STRUCT', fields };
    }
    case 'mapType': {
      const m = t.mapType as { keyType?: PType | null; valueType?: PType | null } | null;
      const key = sqlTypeFromProto(m?.keyType, `${what}.map_type.key_type`);
      if (key.kind !== 'BYTES' && key.kind !== 'STRING' && key.kind !== 'INT64') {
        throw invalidArgument(`${what}: a MAP key must be BYTES, STRING or INT64 (got ${key.kind})`);
      }
      return { kind: 'MAP', key, value: sqlTypeFromProto(m?.valueType, `${what}.map_type.value_type`) };
    }
    case undefined:
      throw invalidArgument(`${what}: the type has no kind`);
    default:
      throw invalidArgument(`${what}: ${snake(kindOf(t)!)} is not a type GoogleSQL for Bigtable takes for parameters`);
  }
}

/** A column's (or field's) type for the ProtoSchema. */
export function sqlTypeToProto(t: SqlType): PType {
  switch (t.kind) {
    case 'BYTES':
      return { bytesType: {} };
    case 'STRING':
    case 'JSON':
      return { stringType: {} };
    case 'INT64':
      return { int64Type: {} };
    case 'FLOAT32':
      return { float32Type: {} };
    case 'FLOAT64':
      return { float64Type: {} };
    case 'BOOL':
      return { boolType: {} };
    case 'TIMESTAMP':
      return { timestampType: {} };
    case 'DATE':
      return { dateType: {} };
    case 'ARRAY':
      return { arrayType: { elementType: sqlTypeToProto(t.element) } };
    case 'STRUCT':
      return { structType: { fields: t.fields.map((f) => ({ fieldName: f.name, type: sqlTypeToProto(f.type) })) } };
    case 'MAP':
      return { mapType: { keyType: sqlTypeToProto(t.key), valueType: sqlTypeToProto(t.value) } };
  }
}
