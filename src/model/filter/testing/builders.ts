import type { ByteString } from '../../bytes.js';
import type { ByteBound, RowFilter } from '../ast.js';

/** Terse RowFilter constructors for tests. Byte strings are JS strings of chars 0..255. */
export const F = {
  chain: (...filters: RowFilter[]): RowFilter => ({ kind: 'chain', filters }),
  interleave: (...filters: RowFilter[]): RowFilter => ({ kind: 'interleave', filters }),
  condition: (predicate: RowFilter | undefined, trueFilter?: RowFilter, falseFilter?: RowFilter): RowFilter => ({
    kind: 'condition',
    predicate,
    trueFilter,
    falseFilter,
  }),
  sink: { kind: 'sink' } as RowFilter,
  pass: { kind: 'passAll' } as RowFilter,
  block: { kind: 'blockAll' } as RowFilter,
  strip: { kind: 'stripValue' } as RowFilter,
  key: (pattern: ByteString): RowFilter => ({ kind: 'rowKeyRegex', pattern }),
  sample: (probability: number): RowFilter => ({ kind: 'rowSample', probability }),
  family: (pattern: string): RowFilter => ({ kind: 'familyRegex', pattern }),
  column: (pattern: ByteString): RowFilter => ({ kind: 'qualifierRegex', pattern }),
  columnRange: (family: string, start: ByteBound = UNBOUNDED, end: ByteBound = UNBOUNDED): RowFilter => ({
    kind: 'columnRange',
    family,
    start,
    end,
  }),
  time: (start: number, end?: number): RowFilter => ({ kind: 'timestampRange', start, end }),
  value: (pattern: ByteString): RowFilter => ({ kind: 'valueRegex', pattern }),
  valueRange: (start: ByteBound = UNBOUNDED, end: ByteBound = UNBOUNDED): RowFilter => ({ kind: 'valueRange', start, end }),
  rowOffset: (offset: number): RowFilter => ({ kind: 'cellsPerRowOffset', offset }),
  rowLimit: (limit: number): RowFilter => ({ kind: 'cellsPerRowLimit', limit }),
  columnLimit: (limit: number): RowFilter => ({ kind: 'cellsPerColumnLimit', limit }),
  label: (label: string): RowFilter => ({ kind: 'applyLabel', label }),
  bitmask: (...mask: number[]): RowFilter => ({ kind: 'valueBitmask', mask: Uint8Array.from(mask) }),
};

export const UNBOUNDED: ByteBound = { kind: 'unbounded' };
export const closed = (value: ByteString): ByteBound => ({ kind: 'closed', value });
export const open = (value: ByteString): ByteBound => ({ kind: 'open', value });
