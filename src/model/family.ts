import type { GcRule } from './gc-rule.js';
import type { ValueType } from './value-type.js';

/** A column family of a table. */
export interface ColumnFamily {
  readonly name: string;
  readonly gcRule: GcRule | undefined;
  readonly valueType: ValueType;
}
