import { type ByteString, fromUtf8 } from '../bytes.js';
import type { Cell, Row } from '../cell.js';
import type { RowFilter } from './ast.js';
import { compileByteRegex } from './byte-regex.js';
import {
  ApplyLabelMap,
  type CellStage,
  ColumnRangeTest,
  FamilyRegexTest,
  QualifierRegexTest,
  StripValueMap,
  TimestampRangeTest,
  ValueBitmaskTest,
  ValueRangeTest,
  ValueRegexTest,
} from './cell-stages.js';
import { mergeSortedRuns } from './merge.js';
import {
  BlockAllNode,
  CellsPerColumnLimitNode,
  CellsPerRowLimitNode,
  CellsPerRowOffsetNode,
  ChainNode,
  ConditionNode,
  EMPTY,
  type EvalContext,
  type FilterNode,
  InterleaveNode,
  PassAllNode,
  PipelineNode,
  RowKeyRegexNode,
  RowSampleNode,
  SinkNode,
} from './nodes.js';
import { validateFilter } from './validate.js';

/** A validated filter, ready to apply to rows. */
export interface CompiledFilter {
  /**
   * Applies the filter to one row. `row.cells` are in output order (families
   * in the table's creation order, then qualifier ascending, then timestamp
   * descending); `compare` is that order, used wherever the filter merges
   * (interleave, sink). Returns the output cells in that order, with labels
   * applied and values stripped where asked; [] when the row is filtered
   * out. The result may be `row.cells` itself: treat it as read-only.
   *
   * Not reentrant (one shared evaluation context): do not call `apply` from
   * inside `compare` or `random`.
   */
  apply(row: Row, compare: (a: Cell, b: Cell) => number): readonly Cell[];
  /**
   * False only when no row with this key can produce output, whatever its
   * cells (e.g. a row-key regex that rejects the key, or block_all): the read
   * path may skip the row without reading it. True is no promise.
   */
  keyMayMatch(key: ByteString): boolean;
  /** True when the filter returns every row unchanged (e.g. pass_all): the read path may skip it. */
  readonly passesAll: boolean;
}

export interface CompileOptions {
  /** Uniform in [0, 1), for row_sample_filter. Default Math.random; inject for deterministic tests. */
  readonly random?: () => number;
}

/**
 * Validates the whole filter (see validate.ts) and compiles its regexes once
 * (RE2). Throws TabletopError('InvalidArgument') with a precise message
 * before any data is touched.
 */
export function compileFilter(filter: RowFilter, options: CompileOptions = {}): CompiledFilter {
  validateFilter(filter);
  const root = build(filter, '');
  return new Compiled(root, options.random ?? Math.random);
}

class Compiled implements CompiledFilter {
  readonly passesAll: boolean;
  private readonly ctx: EvalContext;
  constructor(
    private readonly root: FilterNode,
    random: () => number,
  ) {
    this.passesAll = root.isIdentity;
    this.ctx = { key: '', compare: () => 0, sinkRuns: [], random };
  }

  apply(row: Row, compare: (a: Cell, b: Cell) => number): readonly Cell[] {
    if (row.cells.length === 0) return EMPTY;
    const ctx = this.ctx;
    ctx.key = row.key;
    ctx.compare = compare;
    ctx.sinkRuns.length = 0; // reused: no allocation per row unless a sink fires
    const out = this.root.run(row.cells, ctx);
    if (ctx.sinkRuns.length === 0) return out;
    const merged = mergeSortedRuns([out, ...ctx.sinkRuns], compare);
    ctx.sinkRuns.length = 0;
    return merged;
  }

  keyMayMatch(key: ByteString): boolean {
    return this.root.keyMayEmit(key);
  }
}

/** Builds the node for a validated filter; `path` names fields in regex errors. */
function build(filter: RowFilter, path: string): FilterNode {
  switch (filter.kind) {
    case 'chain':
      return buildChain(filter.filters, `${path}chain.filters`);
    case 'interleave': {
      const nodes = filter.filters.map((f, i) => build(f, `${path}interleave.filters[${i}].`)).filter((n) => !(n instanceof BlockAllNode));
      if (nodes.length === 0) return new BlockAllNode();
      return nodes.length === 1 ? nodes[0]! : new InterleaveNode(nodes);
    }
    case 'condition':
      return new ConditionNode(
        filter.predicate === undefined ? new PassAllNode() : build(filter.predicate, `${path}condition.predicate_filter.`),
        filter.trueFilter === undefined ? undefined : build(filter.trueFilter, `${path}condition.true_filter.`),
        filter.falseFilter === undefined ? undefined : build(filter.falseFilter, `${path}condition.false_filter.`),
      );
    case 'sink':
      return new SinkNode();
    case 'passAll':
      return new PassAllNode();
    case 'blockAll':
      return new BlockAllNode();
    case 'rowKeyRegex':
      return new RowKeyRegexNode(compileByteRegex(filter.pattern, `${path}row_key_regex_filter`));
    case 'rowSample':
      return new RowSampleNode(filter.probability);
    case 'cellsPerRowOffset':
      return filter.offset === 0 ? new PassAllNode() : new CellsPerRowOffsetNode(filter.offset);
    case 'cellsPerRowLimit':
      return new CellsPerRowLimitNode(filter.limit);
    case 'cellsPerColumnLimit':
      return new CellsPerColumnLimitNode(filter.limit);
    default:
      return new PipelineNode([buildStage(filter, path)]);
  }
}

type CellFilter = Extract<
  RowFilter,
  {
    kind:
      | 'familyRegex'
      | 'qualifierRegex'
      | 'columnRange'
      | 'timestampRange'
      | 'valueRegex'
      | 'valueRange'
      | 'valueBitmask'
      | 'stripValue'
      | 'applyLabel';
  }
>;

function buildStage(filter: CellFilter, path: string): CellStage {
  switch (filter.kind) {
    case 'familyRegex':
      return new FamilyRegexTest(compileByteRegex(fromUtf8(filter.pattern), `${path}family_name_regex_filter`), fromUtf8);
    case 'qualifierRegex':
      return new QualifierRegexTest(compileByteRegex(filter.pattern, `${path}column_qualifier_regex_filter`));
    case 'columnRange':
      return new ColumnRangeTest(filter.family, filter.start, filter.end);
    case 'timestampRange':
      return new TimestampRangeTest(filter.start, filter.end === 0 ? undefined : filter.end);
    case 'valueRegex':
      return new ValueRegexTest(compileByteRegex(filter.pattern, `${path}value_regex_filter`));
    case 'valueRange':
      return new ValueRangeTest(filter.start, filter.end);
    case 'valueBitmask':
      return new ValueBitmaskTest(Uint8Array.from(filter.mask));
    case 'stripValue':
      return new StripValueMap();
    case 'applyLabel':
      return new ApplyLabelMap(filter.label);
    default: {
      const unknown: never = filter;
      throw new Error(`unhandled filter kind ${(unknown as RowFilter).kind}`);
    }
  }
}

/**
 * A chain, flattened (chains are associative), without pass_all stages, and
 * with runs of per-cell stages fused into single pipelines.
 */
function buildChain(filters: readonly RowFilter[], path: string): FilterNode {
  const nodes: FilterNode[] = [];
  const add = (node: FilterNode): void => {
    if (node.isIdentity) return;
    if (node instanceof ChainNode) {
      for (const inner of node.nodes) add(inner);
      return;
    }
    const last = nodes[nodes.length - 1];
    if (node instanceof PipelineNode && last instanceof PipelineNode) {
      nodes[nodes.length - 1] = new PipelineNode([...last.stages, ...node.stages]);
      return;
    }
    nodes.push(node);
  };
  filters.forEach((f, i) => add(build(f, `${path}[${i}].`)));
  if (nodes.length === 0) return new PassAllNode();
  return nodes.length === 1 ? nodes[0]! : new ChainNode(nodes);
}
