import { type ByteString, prefixSuccessor, printable } from './bytes.js';
import type { Cell } from './cell.js';
import { TabletopError, invalidArgument } from './errors.js';
import { FULL_RANGE, type KeyRange, intersectRanges, isEmptyRange, mergeRanges } from './key-range.js';
import { FAMILY_NAME_RE, LIMITS } from './limits.js';
import type { Mutation, ReadModifyWriteRule } from './mutation.js';

/**
 * An authorized view's subset of a table (google.bigtable.admin.v2.AuthorizedView.SubsetView), pure:
 *  - a row is in the view when its key starts with one of `rowPrefixes` ("" covers every row; no prefix, no row);
 *  - a cell is in the view when its row is, its family has a subset, and its qualifier is one of the subset's
 *    `qualifiers` or starts with one of its `qualifierPrefixes` ("" covers the whole family).
 * compileSubsetView() turns the definition into the matcher the read and write paths ask.
 */
export interface SubsetView {
  readonly rowPrefixes: readonly ByteString[];
  /** One per family, in family name order (normalizeSubsetView). */
  readonly familySubsets: readonly FamilySubset[];
}

export interface FamilySubset {
  readonly family: string;
  readonly qualifiers: readonly ByteString[];
  readonly qualifierPrefixes: readonly ByteString[];
}

/**
 * Cloud Bigtable's documented limits on a view's definition ("Authorized views overview" and "Create and manage
 * authorized views"): at most 10 qualifier prefixes over all families, and at most 100 definition parameters
 * (row prefixes, qualifiers and qualifier prefixes together).
 */
export const VIEW_LIMITS = Object.freeze({ maxQualifierPrefixes: 10, maxDefinitionParameters: 100 });

/** Sorted, duplicate-free prefixes and qualifiers, families by name: the stored and compared form. */
export function normalizeSubsetView(v: SubsetView): SubsetView {
  const families = new Map<string, FamilySubset>();
  for (const f of v.familySubsets) {
    // A family named twice: the last entry wins, as a JSON definition's repeated key does.
    families.set(f.family, {
      family: f.family,
      qualifiers: sortedUnique(f.qualifiers),
      qualifierPrefixes: sortedUnique(f.qualifierPrefixes),
    });
  }
  return {
    rowPrefixes: sortedUnique(v.rowPrefixes),
    familySubsets: [...families.values()].sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0)),
  };
}

/** INVALID_ARGUMENT for a definition the service refuses: bad family names, oversized keys or qualifiers, past the limits. */
export function validateSubsetView(v: SubsetView): void {
  let prefixes = 0;
  let parameters = v.rowPrefixes.length;
  for (const p of v.rowPrefixes) {
    if (p.length > LIMITS.maxRowKeyBytes)
      throw invalidArgument(`An authorized view's row prefix is ${p.length} bytes; the limit is ${LIMITS.maxRowKeyBytes}`);
  }
  for (const f of v.familySubsets) {
    if (f.family.length === 0 || f.family.length > LIMITS.maxFamilyNameLength || !FAMILY_NAME_RE.test(f.family)) {
      throw invalidArgument(`Invalid column family name "${f.family}" in the authorized view's family_subsets`);
    }
    for (const q of [...f.qualifiers, ...f.qualifierPrefixes]) {
      if (q.length > LIMITS.maxQualifierBytes) {
        throw invalidArgument(
          `An authorized view's qualifier in family "${f.family}" is ${q.length} bytes; the limit is ${LIMITS.maxQualifierBytes}`,
        );
      }
    }
    prefixes += f.qualifierPrefixes.length;
    parameters += f.qualifiers.length + f.qualifierPrefixes.length;
  }
  if (prefixes > VIEW_LIMITS.maxQualifierPrefixes) {
    throw invalidArgument(
      `An authorized view may have at most ${VIEW_LIMITS.maxQualifierPrefixes} qualifier prefixes over all its families; this one has ${prefixes}`,
    );
  }
  if (parameters > VIEW_LIMITS.maxDefinitionParameters) {
    throw invalidArgument(
      `An authorized view may have at most ${VIEW_LIMITS.maxDefinitionParameters} definition parameters (row prefixes, qualifiers and qualifier prefixes); this one has ${parameters}`,
    );
  }
}

/** The key ranges a set of row prefixes covers: sorted, disjoint ("" is the whole table; none, no range). */
export function prefixRanges(prefixes: readonly ByteString[]): KeyRange[] {
  return mergeRanges(prefixes.map((p) => (p === '' ? FULL_RANGE : { start: p, end: prefixSuccessor(p) })));
}

/** The intersection of two sorted, disjoint range lists (sorted, disjoint). */
export function intersectRangeLists(a: readonly KeyRange[], b: readonly KeyRange[]): KeyRange[] {
  const out: KeyRange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const both = intersectRanges(x, y);
    if (!isEmptyRange(both)) out.push(both);
    // The range that ends first can meet nothing further in the other list.
    if (x.end !== undefined && (y.end === undefined || x.end <= y.end)) i++;
    else j++;
  }
  return out;
}

/** What a write asks of the view: in it, outside it, or in it only if the row's current cells say so (a delete). */
export type WriteVerdict = 'in' | 'out' | 'dependsOnRow';

/** A compiled view: the questions the read and write paths ask, answered without allocation where it can. */
export interface ViewMatcher {
  readonly subset: SubsetView;
  /** The ranges the row prefixes cover (sorted, disjoint). */
  readonly ranges: readonly KeyRange[];
  rowInView(key: ByteString): boolean;
  cellInView(family: string, qualifier: ByteString): boolean;
  /** True when the view has every qualifier of `family` (a "" qualifier prefix). */
  familyWhole(family: string): boolean;
  /** The cells of a row that are in the view: the array itself when all are (rows are in the view already). */
  cellsInView(cells: readonly Cell[]): readonly Cell[];
  /** Sorted, disjoint request ranges narrowed to the view's. */
  restrictRanges(ranges: readonly KeyRange[]): KeyRange[];
  /**
   * Whether mutations of row `key` stay in the view. DeleteFromRow and DeleteFromFamily remove whatever the row
   * holds: unless the view has all of it (every family of `tableFamilies` whole, or the family whole), the answer
   * depends on the row's cells (deletesStayInView).
   */
  checkMutations(key: ByteString, mutations: readonly Mutation[], tableFamilies: readonly string[]): WriteVerdict;
  /** Whether the row's rules stay in the view (ReadModifyWriteRow: each rule's column must be in it). */
  rulesInView(key: ByteString, rules: readonly ReadModifyWriteRule[]): boolean;
  /** True when no DeleteFromRow or DeleteFromFamily of `mutations` would remove one of `cells` outside the view. */
  deletesStayInView(mutations: readonly Mutation[], cells: readonly Cell[]): boolean;
}

export function compileSubsetView(subset: SubsetView): ViewMatcher {
  const ranges = prefixRanges(subset.rowPrefixes);
  const families = new Map<string, { exact: Set<ByteString>; prefixes: readonly ByteString[]; whole: boolean }>();
  for (const f of subset.familySubsets) {
    families.set(f.family, { exact: new Set(f.qualifiers), prefixes: f.qualifierPrefixes, whole: f.qualifierPrefixes.includes('') });
  }
  const allRows = ranges.length === 1 && ranges[0]!.start === '' && ranges[0]!.end === undefined;
  const rowInView = (key: ByteString): boolean => {
    if (allRows) return true;
    for (const p of subset.rowPrefixes) if (key.startsWith(p)) return true;
    return false;
  };
  const cellInView = (family: string, qualifier: ByteString): boolean => {
    const f = families.get(family);
    if (f === undefined) return false;
    if (f.whole || f.exact.has(qualifier)) return true;
    for (const p of f.prefixes) if (qualifier.startsWith(p)) return true;
    return false;
  };
  const familyWhole = (family: string): boolean => families.get(family)?.whole === true;
  const deletesStayInView = (mutations: readonly Mutation[], cells: readonly Cell[]): boolean => {
    for (const m of mutations) {
      if (m.kind !== 'deleteFromRow' && m.kind !== 'deleteFromFamily') continue;
      for (const c of cells) {
        if (m.kind === 'deleteFromFamily' && c.family !== m.family) continue;
        if (!cellInView(c.family, c.qualifier)) return false;
      }
    }
    return true;
  };
  return {
    subset,
    ranges,
    rowInView,
    cellInView,
    familyWhole,
    cellsInView(cells) {
      let out: Cell[] | undefined;
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!;
        const inView = cellInView(c.family, c.qualifier);
        if (!inView && out === undefined) out = cells.slice(0, i);
        else if (inView && out !== undefined) out.push(c);
      }
      return out ?? cells;
    },
    restrictRanges: (requested) => (allRows ? [...requested] : intersectRangeLists(requested, ranges)),
    checkMutations(key, mutations, tableFamilies) {
      if (!rowInView(key)) return 'out';
      let verdict: WriteVerdict = 'in';
      for (const m of mutations) {
        if (m.kind === 'deleteFromRow') {
          if (!tableFamilies.every(familyWhole)) verdict = 'dependsOnRow';
        } else if (m.kind === 'deleteFromFamily') {
          if (!families.has(m.family)) return 'out';
          if (!familyWhole(m.family)) verdict = 'dependsOnRow';
        } else if (!cellInView(m.family, m.qualifier)) return 'out';
      }
      return verdict;
    },
    rulesInView(key, rules) {
      if (!rowInView(key)) return false;
      for (const r of rules) if (!cellInView(r.family, r.qualifier)) return false;
      return true;
    },
    deletesStayInView,
  };
}

/** The service's PERMISSION_DENIED for a write through a view that reaches outside it (the Node client's system tests match it). */
export function outsideViewError(viewName: string): TabletopError {
  return new TabletopError(
    'PermissionDenied',
    `Cannot mutate from ${viewName} because the mutation contains cells outside the Authorized View.`,
  );
}

/** A short description of a subset for listings and logs: `prefixes [a, b] families {cf: [q, p*]}`. */
export function describeSubsetView(v: SubsetView): string {
  const prefixes = v.rowPrefixes.map((p) => (p === '' ? '(all rows)' : printable(p))).join(', ');
  const families = v.familySubsets
    .map((f) => `${f.family}: [${[...f.qualifiers.map(printable), ...f.qualifierPrefixes.map((p) => `${printable(p)}*`)].join(', ')}]`)
    .join('; ');
  return `rows [${prefixes}] columns {${families}}`;
}

function sortedUnique(values: readonly ByteString[]): ByteString[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
