import type { ColumnFamily } from '../model/family.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../model/errors.js';
import { validateGcRule } from '../model/gc.js';
import { FAMILY_NAME_RE, LIMITS } from '../model/limits.js';
import type { ValueType } from '../model/value-type.js';
import type { FamilyModification } from './api.js';

/** Validates a column family name: [-_.a-zA-Z0-9]+, at most 64 characters. */
export function validateFamilyName(name: string): void {
  if (name.length === 0 || name.length > LIMITS.maxFamilyNameLength || !FAMILY_NAME_RE.test(name)) {
    throw invalidArgument(
      `Invalid column family name "${name}": must match [-_.a-zA-Z0-9]+ and be at most ${LIMITS.maxFamilyNameLength} characters`,
    );
  }
}

/** Validates a family's value type: sum, min and max aggregate int64 inputs; HLL takes bytes or int64. */
export function validateValueType(family: string, type: ValueType): void {
  if (type.kind === 'bytes') return;
  if (type.aggregator !== 'hll' && type.input !== 'int64') {
    throw invalidArgument(`Column family "${family}": the ${type.aggregator} aggregate needs int64 input, not ${type.input}`);
  }
}

function validateFamily(f: ColumnFamily): void {
  validateFamilyName(f.name);
  if (f.gcRule !== undefined) validateGcRule(f.gcRule);
  validateValueType(f.name, f.valueType);
}

function tooMany(n: number): never {
  throw invalidArgument(`Too many column families: ${n} requested; a table can have at most ${LIMITS.maxFamiliesPerTable}`);
}

/** Validates the families of a new table (given in creation order). */
export function validateNewFamilies(families: readonly ColumnFamily[]): void {
  const seen = new Set<string>();
  for (const f of families) {
    validateFamily(f);
    if (seen.has(f.name)) throw invalidArgument(`Column family "${f.name}" is listed twice`);
    seen.add(f.name);
  }
  if (families.length > LIMITS.maxFamiliesPerTable) tooMany(families.length);
}

export interface FamilyChange {
  /** The families afterwards, in creation order (a created family goes last). */
  readonly families: readonly ColumnFamily[];
  /** Families whose data must be dropped (dropped, or dropped and created again). */
  readonly dropped: ReadonlySet<string>;
}

/**
 * Validates `modifications` in order against `current` and returns the
 * result, without changing anything: the caller applies all or nothing.
 */
export function planFamilyChange(
  table: string,
  current: readonly ColumnFamily[],
  modifications: readonly FamilyModification[],
  deletionProtection: boolean,
): FamilyChange {
  if (modifications.length === 0) throw invalidArgument('ModifyColumnFamilies needs at least one modification');
  let families = [...current];
  const dropped = new Set<string>();
  const find = (name: string): number => families.findIndex((f) => f.name === name);
  for (const m of modifications) {
    validateFamilyName(m.family);
    const at = find(m.family);
    switch (m.kind) {
      case 'create': {
        if (at >= 0) throw alreadyExists(`Column family "${m.family}" already exists in table ${table}`);
        const family: ColumnFamily = { name: m.family, gcRule: m.gcRule, valueType: m.valueType };
        validateFamily(family);
        families.push(family);
        if (families.length > LIMITS.maxFamiliesPerTable) tooMany(families.length);
        break;
      }
      case 'update': {
        if (at < 0) throw notFound(`Column family "${m.family}" not found in table ${table}`);
        if (!m.updateGcRule) break;
        if (m.gcRule !== undefined) validateGcRule(m.gcRule);
        families[at] = { ...families[at]!, gcRule: m.gcRule };
        break;
      }
      case 'drop': {
        if (at < 0) throw notFound(`Column family "${m.family}" not found in table ${table}`);
        if (deletionProtection) {
          throw failedPrecondition(`Column family "${m.family}" cannot be dropped: table ${table} has deletion protection enabled`);
        }
        families = families.filter((f) => f.name !== m.family);
        dropped.add(m.family);
        break;
      }
    }
  }
  return { families, dropped };
}
