import type { Cell } from '../model/cell.js';
import type { ColumnFamily } from '../model/family.js';
import type { GcRule } from '../model/gc-rule.js';

interface FamilyEntry {
  readonly family: ColumnFamily;
  /** Position in creation order. */
  readonly order: number;
}

/**
 * One version of a table's schema: its column families in creation order.
 * Immutable; a schema change builds a new Schema, so a request that captured
 * one sees a consistent set of families from start to end.
 */
export class Schema {
  private readonly byName = new Map<string, FamilyEntry>();
  /** True when some family has a GC rule (otherwise GC work can be skipped). */
  readonly hasGcRules: boolean;
  /** The families' names, in creation order. */
  readonly familyNames: readonly string[];

  constructor(
    readonly families: readonly ColumnFamily[],
    /** Full table name, quoted in row-level error messages ("projects/p/instances/i/tables/t"). */
    readonly tableName?: string,
  ) {
    families.forEach((family, order) => this.byName.set(family.name, { family, order }));
    this.hasGcRules = families.some((f) => f.gcRule !== undefined);
    this.familyNames = families.map((f) => f.name);
  }

  /** The family with this name (the SchemaView of mutation validation). */
  family(name: string): ColumnFamily | undefined {
    return this.byName.get(name)?.family;
  }

  /** The family's position in creation order, or undefined when it is not in the schema. */
  order(name: string): number | undefined {
    return this.byName.get(name)?.order;
  }

  gcRule(name: string): GcRule | undefined {
    return this.byName.get(name)?.family.gcRule;
  }

  /**
   * Output order of cells: family creation order, then qualifier (bytes),
   * then timestamp descending. What filters and clients see.
   */
  readonly compare = (a: Cell, b: Cell): number => {
    if (a.family !== b.family) {
      const oa = this.byName.get(a.family)?.order ?? Number.MAX_SAFE_INTEGER;
      const ob = this.byName.get(b.family)?.order ?? Number.MAX_SAFE_INTEGER;
      if (oa !== ob) return oa - ob;
      return a.family < b.family ? -1 : 1;
    }
    if (a.qualifier !== b.qualifier) return a.qualifier < b.qualifier ? -1 : 1;
    return b.timestamp - a.timestamp;
  };
}
