import { describe, expect, it } from 'vitest';
import { type Cell, cell } from '../model/cell.js';
import { BYTES_TYPE } from '../model/value-type.js';
import { visibleCells } from './row-assembly.js';
import { Schema } from './schema.js';

const c = (family: string, qualifier: string, ts: number): Cell => cell(family, qualifier, ts, new Uint8Array([ts & 0xff]));
const show = (cells: readonly Cell[]): string[] => cells.map((x) => `${x.family}:${x.qualifier}@${x.timestamp}`);

describe('visibleCells', () => {
  const schema = new Schema([
    { name: 'z', gcRule: undefined, valueType: BYTES_TYPE },
    { name: 'a', gcRule: { kind: 'maxVersions', versions: 1 }, valueType: BYTES_TYPE },
    { name: 'm', gcRule: undefined, valueType: BYTES_TYPE },
  ]);

  it('returns the very same array for one family without a GC rule', () => {
    const cells = [c('z', 'a', 2), c('z', 'a', 1), c('z', 'b', 1)];
    expect(visibleCells(cells, schema, 0, 'output')).toBe(cells);
  });

  it('returns the very same array when families are already in creation order and nothing is collected', () => {
    const cells = [c('m', 'q', 1)];
    expect(visibleCells(cells, schema, 0, 'output')).toBe(cells);
    const storage = [c('a', 'q', 1), c('m', 'q', 1), c('z', 'q', 1)];
    expect(visibleCells(storage, schema, 0, 'storage')).toBe(storage);
  });

  it('puts families in creation order and applies each family its rule', () => {
    const cells = [c('a', 'p', 3), c('a', 'p', 2), c('a', 'q', 1), c('m', 'x', 5), c('m', 'x', 4), c('z', 'y', 9)];
    expect(show(visibleCells(cells, schema, 0, 'output'))).toEqual(['z:y@9', 'a:p@3', 'a:q@1', 'm:x@5', 'm:x@4']);
    expect(show(visibleCells(cells, schema, 0, 'storage'))).toEqual(['a:p@3', 'a:q@1', 'm:x@5', 'm:x@4', 'z:y@9']);
  });

  it('drops cells of families that are not in the schema', () => {
    expect(show(visibleCells([c('gone', 'q', 1)], schema, 0, 'output'))).toEqual([]);
    expect(show(visibleCells([c('b', 'q', 1), c('gone', 'q', 1), c('z', 'q', 1)], schema, 0, 'output'))).toEqual(['z:q@1']);
  });
});
