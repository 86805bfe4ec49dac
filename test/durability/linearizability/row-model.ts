import type { Model } from './checker.js';

/**
 * The sequential specification of one Bigtable row as the linearizability
 * run uses it: a value column `cf:v` (one cell, always at the same timestamp,
 * so a write replaces it) and a counter column `cf:c` (ReadModifyWriteRow
 * increments). Reads return both.
 */
export interface RowState {
  readonly v: string | null;
  readonly c: bigint;
}

export type RowInput =
  | { readonly kind: 'read' }
  | { readonly kind: 'write'; readonly value: string }
  /** CheckAndMutateRow: set `value` if the cell is `expected` (a value filter on cf:v). */
  | { readonly kind: 'cas'; readonly expected: string; readonly value: string }
  /** ReadModifyWriteRow: cf:c += 1. */
  | { readonly kind: 'incr' };

export type RowOutput =
  | { readonly kind: 'read'; readonly v: string | null; readonly c: bigint }
  | { readonly kind: 'write' }
  | { readonly kind: 'cas'; readonly matched: boolean }
  | { readonly kind: 'incr'; readonly c: bigint };

export const ROW_MODEL: Model<RowState, RowInput, RowOutput> = {
  init: { v: null, c: 0n },
  step(state, input, output) {
    switch (input.kind) {
      case 'read':
        return { ok: output === undefined || (output.kind === 'read' && output.v === state.v && output.c === state.c), state };
      case 'write':
        return { ok: true, state: { v: input.value, c: state.c } };
      case 'cas': {
        const matches = state.v === input.expected;
        const ok = output === undefined || (output.kind === 'cas' && output.matched === matches);
        return { ok, state: matches ? { v: input.value, c: state.c } : state };
      }
      case 'incr': {
        const c = state.c + 1n;
        return { ok: output === undefined || (output.kind === 'incr' && output.c === c), state: { v: state.v, c } };
      }
    }
  },
  key: (s) => `${s.v ?? '∅'}/${s.c}`,
};

/** An operation in words, for a report. */
export function describeRowOp(input: RowInput, output: RowOutput | undefined): string {
  const out =
    output === undefined
      ? '?'
      : output.kind === 'read'
        ? `v=${output.v ?? '∅'} c=${output.c}`
        : output.kind === 'cas'
          ? String(output.matched)
          : output.kind === 'incr'
            ? `c=${output.c}`
            : 'ok';
  switch (input.kind) {
    case 'read':
      return `read -> ${out}`;
    case 'write':
      return `write ${input.value} -> ${out}`;
    case 'cas':
      return `cas ${input.expected}->${input.value} -> ${out}`;
    case 'incr':
      return `incr -> ${out}`;
  }
}
