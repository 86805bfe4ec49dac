import { describe, expect, it } from 'vitest';
import {
  type SubsetView,
  VIEW_LIMITS,
  compileSubsetView,
  intersectRangeLists,
  normalizeSubsetView,
  outsideViewError,
  prefixRanges,
  validateSubsetView,
} from './authorized-view.js';
import { cell } from './cell.js';
import type { Mutation } from './mutation.js';

const v = (rowPrefixes: string[], families: Record<string, { q?: string[]; p?: string[] }>): SubsetView =>
  normalizeSubsetView({
    rowPrefixes,
    familySubsets: Object.entries(families).map(([family, s]) => ({ family, qualifiers: s.q ?? [], qualifierPrefixes: s.p ?? [] })),
  });
const c = (family: string, qualifier: string) => cell(family, qualifier, 1000, new Uint8Array());
const set = (family: string, qualifier: string): Mutation => ({
  kind: 'setCell',
  family,
  qualifier,
  timestamp: 1000,
  value: new Uint8Array(),
});

describe('authorized view rows', () => {
  it('covers the keys under its prefixes; "" covers every row; no prefix covers none', () => {
    const m = compileSubsetView(v(['a#', 'b'], { cf: { p: [''] } }));
    expect(['a#1', 'a#', 'b', 'bz'].map(m.rowInView)).toEqual([true, true, true, true]);
    expect(['a', 'a$', 'c', ''].map(m.rowInView)).toEqual([false, false, false, false]);
    expect(compileSubsetView(v([''], {})).rowInView('anything')).toBe(true);
    expect(compileSubsetView(v([], {})).rowInView('a')).toBe(false);
  });

  it('turns prefixes into sorted, merged key ranges (a prefix of 0xff bytes is unbounded)', () => {
    expect(prefixRanges(['b', 'a', 'ab'])).toEqual([{ start: 'a', end: 'c' }]);
    expect(prefixRanges(['b', 'd'])).toEqual([
      { start: 'b', end: 'c' },
      { start: 'd', end: 'e' },
    ]);
    expect(prefixRanges(['x\xff'])).toEqual([{ start: 'x\xff', end: 'y' }]);
    expect(prefixRanges(['\xff\xff'])).toEqual([{ start: '\xff\xff', end: undefined }]);
    expect(prefixRanges([''])).toEqual([{ start: '', end: undefined }]);
    expect(prefixRanges([])).toEqual([]);
  });

  it('narrows a read to the view: ranges partly inside a prefix are cut, ranges outside vanish', () => {
    const m = compileSubsetView(v(['k'], { cf: { p: [''] } }));
    expect(m.restrictRanges([{ start: 'a', end: 'ka' }])).toEqual([{ start: 'k', end: 'ka' }]);
    expect(m.restrictRanges([{ start: 'a', end: 'b' }])).toEqual([]);
    expect(m.restrictRanges([{ start: '', end: undefined }])).toEqual([{ start: 'k', end: 'l' }]);
    expect(
      intersectRangeLists(
        [
          { start: 'a', end: 'c' },
          { start: 'd', end: undefined },
        ],
        [
          { start: 'b', end: 'e' },
          { start: 'f', end: 'g' },
        ],
      ),
    ).toEqual([
      { start: 'b', end: 'c' },
      { start: 'd', end: 'e' },
      { start: 'f', end: 'g' },
    ]);
  });
});

describe('authorized view cells', () => {
  const m = compileSubsetView(v([''], { cf: { q: ['name'], p: ['tel'] }, all: { p: [''] } }));

  it('covers listed qualifiers, qualifiers under a prefix, and whole families with ""', () => {
    expect(m.cellInView('cf', 'name')).toBe(true);
    expect(m.cellInView('cf', 'tel#home')).toBe(true);
    expect(m.cellInView('cf', 'names')).toBe(false);
    expect(m.cellInView('other', 'name')).toBe(false);
    expect(m.cellInView('all', 'anything')).toBe(true);
    expect(m.familyWhole('all')).toBe(true);
    expect(m.familyWhole('cf')).toBe(false);
  });

  it('keeps the cells in the view, and the same array when all are', () => {
    const inside = [c('all', 'x'), c('cf', 'name')];
    expect(m.cellsInView(inside)).toBe(inside);
    expect(m.cellsInView([c('cf', 'age'), c('cf', 'name'), c('x', 'y'), c('cf', 'tel')])).toEqual([c('cf', 'name'), c('cf', 'tel')]);
    expect(m.cellsInView([c('cf', 'age')])).toEqual([]);
  });
});

describe('authorized view writes', () => {
  const m = compileSubsetView(v(['t1#'], { cf: { q: ['a'] }, all: { p: [''] } }));

  it('refuses a row outside the prefixes, a column outside the subsets, a family not in the view', () => {
    expect(m.checkMutations('t1#r', [set('cf', 'a'), set('all', 'z')], ['cf', 'all'])).toBe('in');
    expect(m.checkMutations('t2#r', [set('cf', 'a')], ['cf', 'all'])).toBe('out');
    expect(m.checkMutations('t1#r', [set('cf', 'b')], ['cf', 'all'])).toBe('out');
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromFamily', family: 'other' }], ['cf', 'all', 'other'])).toBe('out');
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromColumn', family: 'cf', qualifier: 'b', start: 0, end: undefined }], ['cf'])).toBe(
      'out',
    );
  });

  it('lets whole-family and whole-row deletes through when the view has it all, and asks for the row otherwise', () => {
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromFamily', family: 'all' }], ['cf', 'all'])).toBe('in');
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromFamily', family: 'cf' }], ['cf', 'all'])).toBe('dependsOnRow');
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromRow' }], ['cf', 'all'])).toBe('dependsOnRow');
    expect(m.checkMutations('t1#r', [{ kind: 'deleteFromRow' }], ['all'])).toBe('in');
    // ...and the row decides: a cell the delete would remove outside the view refuses it.
    const row = [c('all', 'q'), c('cf', 'a')];
    expect(m.deletesStayInView([{ kind: 'deleteFromRow' }], row)).toBe(true);
    expect(m.deletesStayInView([{ kind: 'deleteFromRow' }], [...row, c('cf', 'b')])).toBe(false);
    expect(m.deletesStayInView([{ kind: 'deleteFromFamily', family: 'all' }], [c('all', 'q'), c('cf', 'b')])).toBe(true);
    expect(m.deletesStayInView([{ kind: 'deleteFromFamily', family: 'cf' }], [c('all', 'q'), c('cf', 'b')])).toBe(false);
  });

  it('checks ReadModifyWriteRow rules column by column', () => {
    expect(m.rulesInView('t1#r', [{ kind: 'append', family: 'cf', qualifier: 'a', value: new Uint8Array() }])).toBe(true);
    expect(m.rulesInView('t1#r', [{ kind: 'increment', family: 'cf', qualifier: 'b', amount: 1n }])).toBe(false);
    expect(m.rulesInView('x', [{ kind: 'append', family: 'cf', qualifier: 'a', value: new Uint8Array() }])).toBe(false);
  });

  it('says which view refused, in the service words', () => {
    const e = outsideViewError('projects/p/instances/i/tables/t/authorizedViews/v');
    expect(e.code).toBe('PermissionDenied');
    expect(e.message).toBe(
      'Cannot mutate from projects/p/instances/i/tables/t/authorizedViews/v because the mutation contains cells outside the Authorized View.',
    );
  });
});

describe('authorized view definitions', () => {
  it('normalizes: sorted, duplicate-free, the last entry of a family wins', () => {
    const n = normalizeSubsetView({
      rowPrefixes: ['b', 'a', 'b'],
      familySubsets: [
        { family: 'z', qualifiers: ['q'], qualifierPrefixes: [] },
        { family: 'a', qualifiers: ['y', 'x', 'x'], qualifierPrefixes: [] },
        { family: 'z', qualifiers: ['r'], qualifierPrefixes: [] },
      ],
    });
    expect(n).toEqual({
      rowPrefixes: ['a', 'b'],
      familySubsets: [
        { family: 'a', qualifiers: ['x', 'y'], qualifierPrefixes: [] },
        { family: 'z', qualifiers: ['r'], qualifierPrefixes: [] },
      ],
    });
  });

  it('enforces the documented limits: 10 qualifier prefixes, 100 definition parameters', () => {
    const prefixes = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    expect(() => validateSubsetView(v([''], { a: { p: prefixes(6) }, b: { p: prefixes(4) } }))).not.toThrow();
    expect(() => validateSubsetView(v([''], { a: { p: prefixes(6) }, b: { p: prefixes(5) } }))).toThrow(/at most 10 qualifier prefixes/);
    expect(() => validateSubsetView(v(prefixes(50), { a: { q: prefixes(50) } }))).not.toThrow();
    expect(() => validateSubsetView(v(prefixes(51), { a: { q: prefixes(50) } }))).toThrow(
      new RegExp(`at most ${VIEW_LIMITS.maxDefinitionParameters} definition parameters`),
    );
    expect(() => validateSubsetView(v([''], { 'bad name': { p: [''] } }))).toThrow(/Invalid column family name/);
  });
});
