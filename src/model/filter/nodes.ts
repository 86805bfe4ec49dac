import type { ByteString } from '../bytes.js';
import type { Cell } from '../cell.js';
import type { ByteRegex } from './byte-regex-contract.js';
import type { CellStage } from './cell-stages.js';
import { mergeSortedRuns } from './merge.js';

/**
 * The evaluation tree of a compiled filter.
 *
 * Contract of `run(input, ctx)`:
 *  - `input` is the cells reaching this filter, sorted by `ctx.compare`
 *    (output order); it is never modified;
 *  - returns the cells this filter passes to its parent, also sorted; it may
 *    return `input` itself (nothing dropped or changed) or EMPTY;
 *  - cells reaching a sink are appended to `ctx.sinkRuns` as whole sorted
 *    runs and never reach the parent;
 *  - no filter creates cells from an empty input, so empty in, empty out
 *    (chains stop early on that basis).
 *
 * `keyMayEmit(key)` is false only when no row with that key can produce any
 * output (to the parent or to a sink), e.g. a chain with a row-key regex that
 * rejects the key. The read path may skip such rows unread.
 */
export interface EvalContext {
  key: ByteString;
  compare: (a: Cell, b: Cell) => number;
  readonly sinkRuns: (readonly Cell[])[];
  readonly random: () => number;
}

export interface FilterNode {
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[];
  keyMayEmit(key: ByteString): boolean;
  /** True when the node contains a sink. */
  readonly hasSink: boolean;
  /** True when the node passes every input unchanged (pass_all). */
  readonly isIdentity: boolean;
}

export const EMPTY: readonly Cell[] = Object.freeze([]);

export class PassAllNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = true;
  run(input: readonly Cell[]): readonly Cell[] {
    return input;
  }
  keyMayEmit(): boolean {
    return true;
  }
}

export class BlockAllNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  run(): readonly Cell[] {
    return EMPTY;
  }
  keyMayEmit(): boolean {
    return false;
  }
}

export class SinkNode implements FilterNode {
  readonly hasSink = true;
  readonly isIdentity = false;
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    if (input.length > 0) ctx.sinkRuns.push(input);
    return EMPTY;
  }
  keyMayEmit(): boolean {
    return true;
  }
}

export class RowKeyRegexNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  private lastKey: ByteString | undefined;
  private lastResult = false;
  constructor(private readonly regex: ByteRegex) {}
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    return this.keyMayEmit(ctx.key) ? input : EMPTY;
  }
  /** Cached: the read path may ask before `run` for the same key. */
  keyMayEmit(key: ByteString): boolean {
    if (key !== this.lastKey) {
      this.lastResult = this.regex.test(key);
      this.lastKey = key;
    }
    return this.lastResult;
  }
}

export class RowSampleNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  constructor(private readonly probability: number) {}
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    return ctx.random() < this.probability ? input : EMPTY;
  }
  keyMayEmit(): boolean {
    return true;
  }
}

/** Fused per-cell stages: one pass, no intermediate arrays, a copy only once a cell is dropped or changed. */
export class PipelineNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  constructor(readonly stages: readonly CellStage[]) {}
  run(input: readonly Cell[]): readonly Cell[] {
    const stages = this.stages;
    const count = stages.length;
    let out: Cell[] | undefined;
    for (let i = 0; i < input.length; i++) {
      const original = input[i]!;
      let c = original;
      let keep = true;
      for (let s = 0; s < count; s++) {
        const stage = stages[s]!;
        if (stage.kind === 'test') {
          if (!stage.test(c)) {
            keep = false;
            break;
          }
        } else {
          c = stage.map(c);
        }
      }
      if (out === undefined) {
        if (keep && c === original) continue;
        out = input.slice(0, i);
      }
      if (keep) out.push(c);
    }
    if (out === undefined) return input;
    return out.length === 0 ? EMPTY : out;
  }
  keyMayEmit(): boolean {
    return true;
  }
}

export class CellsPerRowOffsetNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity: boolean;
  constructor(private readonly offset: number) {
    this.isIdentity = offset === 0;
  }
  run(input: readonly Cell[]): readonly Cell[] {
    if (this.offset === 0) return input;
    return input.length <= this.offset ? EMPTY : input.slice(this.offset);
  }
  keyMayEmit(): boolean {
    return true;
  }
}

export class CellsPerRowLimitNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  constructor(private readonly limit: number) {}
  run(input: readonly Cell[]): readonly Cell[] {
    return input.length <= this.limit ? input : input.slice(0, this.limit);
  }
  keyMayEmit(): boolean {
    return true;
  }
}

/** Keeps the first `limit` cells of each column in input order; duplicates count separately. */
export class CellsPerColumnLimitNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  constructor(private readonly limit: number) {}
  run(input: readonly Cell[]): readonly Cell[] {
    const limit = this.limit;
    let family: string | undefined;
    let qualifier: ByteString | undefined;
    let seen = 0;
    let out: Cell[] | undefined;
    for (let i = 0; i < input.length; i++) {
      const c = input[i]!;
      if (c.qualifier !== qualifier || c.family !== family) {
        family = c.family;
        qualifier = c.qualifier;
        seen = 0;
      }
      seen++;
      const keep = seen <= limit;
      if (out === undefined) {
        if (keep) continue;
        out = input.slice(0, i);
      }
      if (keep) out.push(c);
    }
    return out ?? input;
  }
  keyMayEmit(): boolean {
    return true;
  }
}

export class ChainNode implements FilterNode {
  readonly hasSink: boolean;
  readonly isIdentity = false;
  constructor(readonly nodes: readonly FilterNode[]) {
    this.hasSink = nodes.some((n) => n.hasSink);
  }
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    let cells = input;
    for (const node of this.nodes) {
      cells = node.run(cells, ctx);
      if (cells.length === 0) return EMPTY;
    }
    return cells;
  }
  /** A stage that rejects the key ends the chain's output, but sinks before it have already emitted. */
  keyMayEmit(key: ByteString): boolean {
    let sinkBefore = false;
    for (const node of this.nodes) {
      if (!node.keyMayEmit(key)) return sinkBefore;
      sinkBefore ||= node.hasSink;
    }
    return true;
  }
}

export class InterleaveNode implements FilterNode {
  readonly hasSink: boolean;
  readonly isIdentity = false;
  constructor(readonly nodes: readonly FilterNode[]) {
    this.hasSink = nodes.some((n) => n.hasSink);
  }
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    const runs: (readonly Cell[])[] = [];
    for (const node of this.nodes) {
      const out = node.run(input, ctx);
      if (out.length > 0) runs.push(out);
    }
    return mergeSortedRuns(runs, ctx.compare);
  }
  keyMayEmit(key: ByteString): boolean {
    return this.nodes.some((n) => n.keyMayEmit(key));
  }
}

/** Missing branches are undefined: they output nothing. Sinks are not allowed inside (validation). */
export class ConditionNode implements FilterNode {
  readonly hasSink = false;
  readonly isIdentity = false;
  constructor(
    private readonly predicate: FilterNode,
    private readonly whenTrue: FilterNode | undefined,
    private readonly whenFalse: FilterNode | undefined,
  ) {}
  run(input: readonly Cell[], ctx: EvalContext): readonly Cell[] {
    const matched = this.predicate.run(input, ctx).length > 0;
    const branch = matched ? this.whenTrue : this.whenFalse;
    return branch === undefined ? EMPTY : branch.run(input, ctx);
  }
  keyMayEmit(key: ByteString): boolean {
    const emits = (n: FilterNode | undefined): boolean => n !== undefined && n.keyMayEmit(key);
    if (!this.predicate.keyMayEmit(key)) return emits(this.whenFalse);
    return emits(this.whenTrue) || emits(this.whenFalse);
  }
}
