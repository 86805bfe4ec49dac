import { type SubsetView, normalizeSubsetView } from '../model/authorized-view.js';
import { gcRuleEquals } from '../model/gc.js';
import { formatGcRule } from './gc-rule-text.js';
import { collectsMore } from './gc-rule-text.js';
import { type FamilySchema, type TableSchema, type ViewSchema, formatValueType, keyText } from './schema-file.js';

/**
 * The changes that take a server's schema to a file's, in the order apply makes them: tables created first (with
 * their families, splits and deletion protection), then per table: deletion protection turned off (it guards the
 * families too), views removed, families added and changed, views added and changed, families dropped (after the
 * views that named them), deletion protection turned on; tables deleted last.
 * A change is destructive when it loses data or access: deleting a table, a family or a view, or a GC rule that
 * collects a cell the current one keeps (collectsMore).
 */
export type Change =
  | { readonly kind: 'createTable'; readonly table: string; readonly schema: TableSchema }
  | { readonly kind: 'deleteTable'; readonly table: string }
  | { readonly kind: 'createFamily'; readonly table: string; readonly family: string; readonly schema: FamilySchema }
  | {
      readonly kind: 'updateGc';
      readonly table: string;
      readonly family: string;
      readonly from: FamilySchema;
      readonly schema: FamilySchema;
    }
  | { readonly kind: 'dropFamily'; readonly table: string; readonly family: string }
  | { readonly kind: 'createView'; readonly table: string; readonly view: string; readonly schema: ViewSchema }
  | { readonly kind: 'updateView'; readonly table: string; readonly view: string; readonly schema: ViewSchema }
  | { readonly kind: 'deleteView'; readonly table: string; readonly view: string }
  | { readonly kind: 'deletionProtection'; readonly table: string; readonly on: boolean };

export interface Plan {
  readonly changes: readonly Change[];
  /** Why the plan cannot be applied (nothing is changed then). */
  readonly errors: readonly string[];
}

/**
 * The plan for the tables of `desired` against `actual` (both by table id). `prune`: tables in `actual` that
 * `desired` lacks are deleted (an instance file); otherwise only the tables of `desired` are looked at.
 */
export function planSchema(actual: ReadonlyMap<string, TableSchema>, desired: ReadonlyMap<string, TableSchema>, prune: boolean): Plan {
  const changes: Change[] = [];
  const errors: string[] = [];
  for (const [table, want] of desired) {
    const have = actual.get(table);
    if (have === undefined) {
      changes.push({ kind: 'createTable', table, schema: want });
      for (const [view, schema] of want.views ?? []) changes.push({ kind: 'createView', table, view, schema });
    } else planTable(table, have, want, changes, errors);
  }
  if (prune) {
    for (const [table, have] of actual) {
      if (desired.has(table)) continue;
      if (have.deletionProtection) errors.push(`table ${table} is not in the file but has deletion protection: it cannot be deleted`);
      for (const [view, v] of have.views ?? [])
        if (v.deletionProtection) errors.push(`table ${table} is not in the file but its view ${view} has deletion protection`);
      changes.push({ kind: 'deleteTable', table });
    }
  }
  return { changes, errors };
}

function planTable(table: string, have: TableSchema, want: TableSchema, changes: Change[], errors: string[]): void {
  // Deletion protection also guards a table's families: it goes off before anything else and on after everything.
  const protection = have.deletionProtection !== want.deletionProtection;
  if (protection && !want.deletionProtection) changes.push({ kind: 'deletionProtection', table, on: false });
  const wantViews = want.views;
  const haveViews = have.views ?? new Map<string, ViewSchema>();
  if (have.views === undefined && wantViews !== undefined && wantViews.size > 0) {
    errors.push(`table ${table} has authorized views in the file, but the server does not serve authorized views`);
    return;
  }
  if (wantViews !== undefined) {
    for (const [view, v] of haveViews) {
      if (wantViews.has(view)) continue;
      if (v.deletionProtection)
        errors.push(`view ${view} of table ${table} is not in the file but has deletion protection: it cannot be deleted`);
      changes.push({ kind: 'deleteView', table, view });
    }
  }
  for (const [family, f] of want.families) {
    const old = have.families.get(family);
    if (old === undefined) changes.push({ kind: 'createFamily', table, family, schema: f });
    else {
      if (formatValueType(old.valueType) !== formatValueType(f.valueType)) {
        errors.push(
          `family ${family} of table ${table} is ${formatValueType(old.valueType)} on the server and ${formatValueType(f.valueType)} in the file: a family's type cannot change (drop the family and add it again, losing its data)`,
        );
      }
      if (!gcRuleEquals(old.gcRule, f.gcRule)) changes.push({ kind: 'updateGc', table, family, from: old, schema: f });
    }
  }
  for (const [view, v] of wantViews ?? []) {
    const old = haveViews.get(view);
    if (old === undefined) changes.push({ kind: 'createView', table, view, schema: v });
    else if (!sameView(old, v)) changes.push({ kind: 'updateView', table, view, schema: v });
  }
  for (const family of have.families.keys()) if (!want.families.has(family)) changes.push({ kind: 'dropFamily', table, family });
  if (protection && want.deletionProtection) changes.push({ kind: 'deletionProtection', table, on: true });
}

function sameView(a: ViewSchema, b: ViewSchema): boolean {
  return a.deletionProtection === b.deletionProtection && subsetKey(a.subset) === subsetKey(b.subset);
}

function subsetKey(s: SubsetView): string {
  return JSON.stringify(normalizeSubsetView(s));
}

export function isDestructive(c: Change): boolean {
  switch (c.kind) {
    case 'deleteTable':
    case 'dropFamily':
    case 'deleteView':
      return true;
    case 'updateGc':
      return collectsMore(c.from.gcRule, c.schema.gcRule);
    default:
      return false;
  }
}

/** One line for a change: `+` adds, `~` changes, `-` removes; `!` marks what loses data or access. */
export function describeChange(c: Change): string {
  const mark = isDestructive(c) ? '!' : ' ';
  switch (c.kind) {
    case 'createTable': {
      const fams = [...c.schema.families].map(([n, f]) => familyText(n, f)).join(', ');
      const extra = [
        c.schema.splits.length > 0 ? `splits ${c.schema.splits.map(keyText).join(' ')}` : '',
        c.schema.deletionProtection ? 'deletion protection on' : '',
      ].filter((s) => s !== '');
      return ` + table ${c.table}: families ${fams === '' ? '(none)' : fams}${extra.length > 0 ? `; ${extra.join('; ')}` : ''}`;
    }
    case 'deleteTable':
      return `${mark}- table ${c.table} (and all its data)`;
    case 'createFamily':
      return ` + table ${c.table}: family ${familyText(c.family, c.schema)}`;
    case 'updateGc':
      return `${mark}~ table ${c.table}: family ${c.family} gc ${formatGcRule(c.from.gcRule)} -> ${formatGcRule(c.schema.gcRule)}${
        mark === '!' ? ' (collects cells the current rule keeps)' : ''
      }`;
    case 'dropFamily':
      return `${mark}- table ${c.table}: family ${c.family} (and all its data)`;
    case 'createView':
      return ` + table ${c.table}: authorized view ${c.view} ${viewText(c.schema)}`;
    case 'updateView':
      return ` ~ table ${c.table}: authorized view ${c.view} -> ${viewText(c.schema)}`;
    case 'deleteView':
      return `${mark}- table ${c.table}: authorized view ${c.view}`;
    case 'deletionProtection':
      return ` ~ table ${c.table}: deletion protection ${c.on ? 'off -> on' : 'on -> off'}`;
  }
}

function familyText(name: string, f: FamilySchema): string {
  return `${name} (gc ${formatGcRule(f.gcRule)}${f.valueType.kind === 'bytes' ? '' : `, ${formatValueType(f.valueType)}`})`;
}

function viewText(v: ViewSchema): string {
  const s = normalizeSubsetView(v.subset);
  const fams = s.familySubsets
    .map((f) => `${f.family}[${[...f.qualifiers.map(keyText), ...f.qualifierPrefixes.map((p) => `${keyText(p)}*`)].join(' ')}]`)
    .join(' ');
  return `(rows ${s.rowPrefixes.map((p) => `${keyText(p)}*`).join(' ') || 'none'}; cells ${fams || 'none'}${v.deletionProtection ? '; deletion protection on' : ''})`;
}
