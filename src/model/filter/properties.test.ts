import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBytes, toBytes } from '../bytes.js';
import { type Cell, cell, type Row } from '../cell.js';
import type { RowFilter } from './ast.js';
import { compileByteRegex } from './byte-regex.js';
import { type CompiledFilter, compileFilter } from './compile.js';
import { FAMILIES, sampleRow, validFilter } from './testing/arbitraries.js';
import { F } from './testing/builders.js';
import { outputOrder, renderCell } from './testing/cells.js';

/**
 * Property tests. The main one is differential: the compiled evaluator (with
 * chain flattening, fused per-cell pipelines, lazy copies, early exits) must
 * agree with a deliberately naive evaluator written straight from the
 * data.proto text, on random valid filters and random rows.
 */
const ORDER = outputOrder(FAMILIES);
/** Constant draws: sample(0.25) always drops, sample(0.75) always keeps, in both evaluators. */
const random = (): number => 0.5;

const toRow = (r: { key: string; coords: { family: string; qualifier: string; timestamp: number; value: string }[] }): Row => ({
  key: r.key,
  cells: r.coords.map((c) => cell(c.family, c.qualifier, c.timestamp, toBytes(c.value))).sort(ORDER),
});

const tryCompile = (f: RowFilter): CompiledFilter | undefined => {
  try {
    return compileFilter(f, { random });
  } catch {
    return undefined; // e.g. an empty column range drawn at random
  }
};
const validFilters = validFilter().filter((f) => tryCompile(f) !== undefined);
const show = (cells: readonly Cell[]): string[] => cells.map(renderCell);

/** Stable sort: ties keep their order in the concatenation. */
const stableSort = (cells: readonly Cell[]): Cell[] => [...cells].sort(ORDER);

function reference(f: RowFilter, cells: readonly Cell[], key: string, sink: Cell[]): Cell[] {
  const each = (keep: (c: Cell) => boolean): Cell[] => cells.filter(keep);
  switch (f.kind) {
    case 'chain':
      return f.filters.reduce<Cell[]>((acc, sub) => reference(sub, acc, key, sink), [...cells]);
    case 'interleave':
      return stableSort(f.filters.flatMap((sub) => reference(sub, cells, key, sink)));
    case 'condition': {
      const matched = (f.predicate === undefined ? [...cells] : reference(f.predicate, cells, key, [])).length > 0;
      const branch = matched ? f.trueFilter : f.falseFilter;
      return branch === undefined ? [] : reference(branch, cells, key, sink);
    }
    case 'sink':
      sink.push(...cells);
      return [];
    case 'passAll':
      return [...cells];
    case 'blockAll':
      return [];
    case 'rowKeyRegex':
      return compileByteRegex(f.pattern, 'f').test(key) ? [...cells] : [];
    case 'rowSample':
      return random() < f.probability ? [...cells] : [];
    case 'familyRegex':
      return each((c) => compileByteRegex(f.pattern, 'f').test(c.family));
    case 'qualifierRegex':
      return each((c) => compileByteRegex(f.pattern, 'f').test(c.qualifier));
    case 'columnRange':
      return each((c) => {
        if (c.family !== f.family) return false;
        const q = c.qualifier;
        const okStart = f.start.kind === 'unbounded' || (f.start.kind === 'closed' ? q >= f.start.value : q > f.start.value);
        const okEnd = f.end.kind === 'unbounded' || (f.end.kind === 'closed' ? q <= f.end.value : q < f.end.value);
        return okStart && okEnd;
      });
    case 'timestampRange':
      return each((c) => c.timestamp >= f.start && (f.end === undefined || f.end === 0 || c.timestamp < f.end));
    case 'valueRegex':
      return each((c) => compileByteRegex(f.pattern, 'f').test(fromBytes(c.value)));
    case 'valueRange':
      return each((c) => {
        const v = fromBytes(c.value);
        const okStart = f.start.kind === 'unbounded' || (f.start.kind === 'closed' ? v >= f.start.value : v > f.start.value);
        const okEnd = f.end.kind === 'unbounded' || (f.end.kind === 'closed' ? v <= f.end.value : v < f.end.value);
        return okStart && okEnd;
      });
    case 'valueBitmask':
      return each((c) => c.value.length === f.mask.length && c.value.every((b, i) => (b & f.mask[i]!) === f.mask[i]));
    case 'cellsPerRowOffset':
      return cells.slice(f.offset);
    case 'cellsPerRowLimit':
      return cells.slice(0, f.limit);
    case 'cellsPerColumnLimit': {
      const seen = new Map<string, number>();
      return each((c) => {
        const column = `${c.family}:${c.qualifier}`;
        const n = (seen.get(column) ?? 0) + 1;
        seen.set(column, n);
        return n <= f.limit;
      });
    }
    case 'stripValue':
      return cells.map((c) => cell(c.family, c.qualifier, c.timestamp, new Uint8Array(0), c.labels));
    case 'applyLabel':
      return cells.map((c) => cell(c.family, c.qualifier, c.timestamp, c.value, [...c.labels, f.label]));
  }
}

function referenceApply(f: RowFilter, row: Row): Cell[] {
  const sink: Cell[] = [];
  const out = reference(f, row.cells, row.key, sink);
  return stableSort([...out, ...sink]);
}

const run = (f: RowFilter, row: Row): string[] => show(compileFilter(f, { random }).apply(row, ORDER));

describe('RowFilter properties', () => {
  it('the compiled filter agrees with a naive reference evaluator', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), fc.constantFrom('k1', 'x'), (filter, row, key) => {
        const r = { key, cells: row.cells };
        expect(run(filter, r)).toEqual(show(referenceApply(filter, r)));
      }),
      { numRuns: 1500 },
    );
  });

  it('output is sorted, every cell comes from the input, and a cell has at most one label', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), (filter, row) => {
        const out = compileFilter(filter, { random }).apply(row, ORDER);
        for (let i = 1; i < out.length; i++) expect(ORDER(out[i - 1]!, out[i]!)).toBeLessThanOrEqual(0);
        const coords = new Set(row.cells.map((c) => `${c.family}:${c.qualifier}@${c.timestamp}`));
        for (const c of out) {
          expect(coords.has(`${c.family}:${c.qualifier}@${c.timestamp}`)).toBe(true);
          expect(c.labels.length).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('pass_all is an identity for chain, block_all for interleave', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), (f, row) => {
        const expected = run(f, row);
        expect(run(F.chain(F.pass, f), row)).toEqual(expected);
        expect(run(F.chain(f, F.pass), row)).toEqual(expected);
        expect(run(F.interleave(f, F.block), row)).toEqual(expected);
        expect(run(F.interleave(F.block, f), row)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('interleave(f, f) returns each output cell of f twice, the first copy of a tie group first', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), (f, row) => {
        // Cells of f that compare equal (same column and timestamp, e.g. different labels) form a group;
        // the stable merge emits the first copy's group, then the second's. (With a sink inside f, the
        // sink copies merge at the very end instead.)
        fc.pre(!JSON.stringify(f).includes('"sink"'));
        const once = compileFilter(f, { random }).apply(row, ORDER);
        const expected: Cell[] = [];
        for (let i = 0; i < once.length;) {
          let j = i + 1;
          while (j < once.length && ORDER(once[i]!, once[j]!) === 0) j++;
          const group = once.slice(i, j);
          expected.push(...group, ...group);
          i = j;
        }
        expect(run(F.interleave(f, f), row)).toEqual(show(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('chains are associative', () => {
    fc.assert(
      fc.property(validFilter(1), validFilter(1), validFilter(1), sampleRow.map(toRow), (a, b, c, row) => {
        const left = F.chain(F.chain(a, b), c);
        const right = F.chain(a, F.chain(b, c));
        fc.pre(tryCompile(left) !== undefined && tryCompile(right) !== undefined);
        expect(run(left, row)).toEqual(run(right, row));
      }),
      { numRuns: 300 },
    );
  });

  it('condition(pass_all, t, f) is t on any row', () => {
    fc.assert(
      fc.property(validFilter(2), sampleRow.map(toRow), (t, row) => {
        const cond = F.condition(F.pass, t, F.block);
        fc.pre(tryCompile(cond) !== undefined);
        expect(run(cond, row)).toEqual(run(t, row));
      }),
      { numRuns: 300 },
    );
  });

  it('a sink first in a chain returns the whole row whatever follows', () => {
    fc.assert(
      fc.property(validFilter(2), sampleRow.map(toRow), (g, row) => {
        const f = F.chain(F.sink, g);
        fc.pre(tryCompile(f) !== undefined);
        expect(run(f, row)).toEqual(show(row.cells));
      }),
      { numRuns: 300 },
    );
  });

  it('keyMayMatch is sound: when false, the row produces nothing', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), fc.constantFrom('k1', 'x', ''), (f, row, key) => {
        const compiled = compileFilter(f, { random });
        if (!compiled.keyMayMatch(key)) expect(compiled.apply({ key, cells: row.cells }, ORDER)).toEqual([]);
      }),
      { numRuns: 800 },
    );
  });

  it('passesAll is sound: when true, the row is returned unchanged', () => {
    fc.assert(
      fc.property(validFilters, sampleRow.map(toRow), (f, row) => {
        const compiled = compileFilter(f, { random });
        if (compiled.passesAll) expect(compiled.apply(row, ORDER)).toEqual(row.cells);
      }),
      { numRuns: 300 },
    );
  });
});
