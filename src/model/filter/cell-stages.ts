import { type ByteString, fromBytes } from '../bytes.js';
import { type Cell, cell } from '../cell.js';
import type { ByteBound } from './ast.js';
import { qualifierInRange, valueInRange } from './byte-range.js';
import type { ByteRegex } from './byte-regex-contract.js';

/**
 * Per-cell stages: filters that decide each cell on its own (tests) and
 * transformers that rewrite each cell on its own (maps). Consecutive stages
 * of a chain are fused into one pass over the row (see nodes.ts, Pipeline).
 * Stages are objects with a method, not closures, so a pipeline allocates
 * nothing per cell unless it must build a new cell.
 */
export type CellStage = CellTest | CellMap;

export interface CellTest {
  readonly kind: 'test';
  test(c: Cell): boolean;
}

export interface CellMap {
  readonly kind: 'map';
  map(c: Cell): Cell;
}

export class FamilyRegexTest implements CellTest {
  readonly kind = 'test';
  /** Family names are few: each is matched once per compiled filter. */
  private readonly seen = new Map<string, boolean>();
  constructor(
    private readonly regex: ByteRegex,
    /** Families are text; the regex runs over their UTF-8 bytes. */
    private readonly toBytes: (family: string) => ByteString,
  ) {}
  test(c: Cell): boolean {
    let ok = this.seen.get(c.family);
    if (ok === undefined) {
      ok = this.regex.test(this.toBytes(c.family));
      this.seen.set(c.family, ok);
    }
    return ok;
  }
}

/**
 * Remembers a costly regex's answers for short subjects, up to a bound (then
 * starts over): qualifiers repeat across rows (a schema has few column
 * names), values often do (flags, enums), and a call into RE2 costs about a
 * microsecond against tens of nanoseconds for a map lookup.
 */
class RegexMemo {
  private readonly seen = new Map<ByteString, boolean>();
  constructor(private readonly regex: ByteRegex) {}
  test(subject: ByteString): boolean {
    let ok = this.seen.get(subject);
    if (ok === undefined) {
      ok = this.regex.test(subject);
      if (this.seen.size >= MEMO_ENTRIES) this.seen.clear();
      this.seen.set(subject, ok);
    }
    return ok;
  }
}

const MEMO_ENTRIES = 4096;
const MEMO_MAX_QUALIFIER = 256;
const MEMO_MAX_VALUE = 64;

export class QualifierRegexTest implements CellTest {
  readonly kind = 'test';
  private readonly memo: RegexMemo | undefined;
  constructor(private readonly regex: ByteRegex) {
    this.memo = regex.costly ? new RegexMemo(regex) : undefined;
  }
  test(c: Cell): boolean {
    const q = c.qualifier;
    return this.memo !== undefined && q.length <= MEMO_MAX_QUALIFIER ? this.memo.test(q) : this.regex.test(q);
  }
}

export class ColumnRangeTest implements CellTest {
  readonly kind = 'test';
  private readonly inRange: (q: ByteString) => boolean;
  constructor(
    private readonly family: string,
    start: ByteBound,
    end: ByteBound,
  ) {
    this.inRange = qualifierInRange(start, end);
  }
  test(c: Cell): boolean {
    return c.family === this.family && this.inRange(c.qualifier);
  }
}

export class TimestampRangeTest implements CellTest {
  readonly kind = 'test';
  /** `end` undefined: unbounded. */
  constructor(
    private readonly start: number,
    private readonly end: number | undefined,
  ) {}
  test(c: Cell): boolean {
    return c.timestamp >= this.start && (this.end === undefined || c.timestamp < this.end);
  }
}

export class ValueRegexTest implements CellTest {
  readonly kind = 'test';
  private readonly memo: RegexMemo | undefined;
  constructor(private readonly regex: ByteRegex) {
    this.memo = regex.costly ? new RegexMemo(regex) : undefined;
  }
  test(c: Cell): boolean {
    const v = c.value;
    return this.memo !== undefined && v.byteLength <= MEMO_MAX_VALUE ? this.memo.test(fromBytes(v)) : this.regex.testBytes(v);
  }
}

export class ValueRangeTest implements CellTest {
  readonly kind = 'test';
  private readonly inRange: (v: Uint8Array) => boolean;
  constructor(start: ByteBound, end: ByteBound) {
    this.inRange = valueInRange(start, end);
  }
  test(c: Cell): boolean {
    return this.inRange(c.value);
  }
}

/** Keeps cells whose value has the mask's length and every mask bit set: `(value & mask) == mask`. */
export class ValueBitmaskTest implements CellTest {
  readonly kind = 'test';
  constructor(private readonly mask: Uint8Array) {}
  test(c: Cell): boolean {
    const v = c.value;
    const m = this.mask;
    if (v.byteLength !== m.byteLength) return false;
    for (let i = 0; i < m.byteLength; i++) {
      const bits = m[i]!;
      if ((v[i]! & bits) !== bits) return false;
    }
    return true;
  }
}

const EMPTY_VALUE = new Uint8Array(0);

export class StripValueMap implements CellMap {
  readonly kind = 'map';
  map(c: Cell): Cell {
    return c.value.byteLength === 0 ? c : cell(c.family, c.qualifier, c.timestamp, EMPTY_VALUE, c.labels);
  }
}

export class ApplyLabelMap implements CellMap {
  readonly kind = 'map';
  private readonly labels: readonly string[];
  constructor(label: string) {
    this.labels = Object.freeze([label]);
  }
  map(c: Cell): Cell {
    // Validation guarantees at most one label per cell; keep any earlier one rather than lose it.
    const labels = c.labels.length === 0 ? this.labels : [...c.labels, ...this.labels];
    return cell(c.family, c.qualifier, c.timestamp, c.value, labels);
  }
}
