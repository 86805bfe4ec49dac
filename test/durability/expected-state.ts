/**
 * The crash test's expected state, kept by the driver (which is never
 * killed), in the manner of RocksDB's db_crashtest: an operation is recorded
 * as pending when it is sent and as acknowledged when the client resolves.
 *
 * Rows. A row's visible state is a map column → tag (the family has a
 * max-versions-1 GC rule, so a read shows one cell per column; the tag names
 * the operation that wrote it, and the value is derived from tag and column).
 * Operations on one row are issued one at a time, so a row has an
 * acknowledged state and at most one pending operation. After a crash the
 * row must read as exactly the acknowledged state, or as the pending
 * operation applied to it in full: anything else is a lost write or a
 * half-applied row mutation. Verification then adopts what it saw, so the
 * next crash is checked against the recovered state.
 *
 * Counters. Increments by 1 may be in flight together; after a crash a
 * counter must lie in [acked, acked + pending].
 */

export type Step =
  | { readonly kind: 'set'; readonly column: string }
  | { readonly kind: 'deleteColumn'; readonly column: string }
  | { readonly kind: 'deleteFamily'; readonly family: string }
  | { readonly kind: 'deleteRow' };

/** One row mutation: steps applied in order, every `set` writing `tag`. */
export interface RowOp {
  readonly tag: string;
  /** How it was sent (for messages): insert, save, mutate, mutateRow, delete, ... */
  readonly via: string;
  readonly steps: readonly Step[];
}

/** column ("family:qualifier") → tag. */
export type RowState = ReadonlyMap<string, string>;

export function applyOp(state: RowState, op: RowOp): RowState {
  const next = new Map(state);
  for (const step of op.steps) {
    switch (step.kind) {
      case 'set':
        next.set(step.column, op.tag);
        break;
      case 'deleteColumn':
        next.delete(step.column);
        break;
      case 'deleteFamily':
        for (const column of [...next.keys()]) if (column.startsWith(`${step.family}:`)) next.delete(column);
        break;
      case 'deleteRow':
        next.clear();
        break;
    }
  }
  return next;
}

/** The value of the cell that `tag` writes in `column`: tag, column, and a filler whose length and content follow from both. */
export function cellValue(tag: string, column: string): Buffer {
  const h = hash32(`${tag}/${column}`);
  const length = 16 + (h % 1500);
  const unit = `${h.toString(36)}.`;
  const head = `${tag}|${column}|`;
  return Buffer.from(head + unit.repeat(Math.ceil(length / unit.length)).slice(0, length), 'latin1');
}

/** The tag that wrote a cell, or a description of why the value is wrong. */
export function parseCellValue(column: string, value: Buffer): { tag: string } | { error: string } {
  const text = value.toString('latin1');
  const bar = text.indexOf('|');
  if (bar < 0) return { error: `malformed value ${JSON.stringify(text.slice(0, 60))}` };
  const tag = text.slice(0, bar);
  if (!cellValue(tag, column).equals(value)) {
    return {
      error: `value of ${column} claims tag ${tag} but differs from what that write stored (${value.length} bytes: ${JSON.stringify(text.slice(0, 60))}...)`,
    };
  }
  return { tag };
}

/** FNV-1a, 32 bits. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A row as read back: column → the cells (value and timestamp), newest first. */
export type ObservedRow = ReadonlyMap<string, readonly { readonly value: Buffer; readonly timestampMicros: string }[]>;

interface RowModel {
  acked: RowState;
  pending: RowOp | undefined;
  /** Acknowledgements so far; `recent` holds the states after the last few (recent.at(-1) is `acked`). */
  acks: number;
  recent: RowState[];
  /** The operations applied so far (for messages): the last few. */
  history: string[];
}

/** How many past states of each row are kept for checking reads that overlap writes. */
const RECENT_STATES = 64;

/** Where each row and counter stood when a read started. */
export interface ReadMark {
  readonly rows: ReadonlyMap<string, number>;
  readonly counters: ReadonlyMap<string, number>;
}

interface CounterModel {
  acked: number;
  pending: number;
}

export class ExpectedState {
  private readonly rows = new Map<string, RowModel>();
  private readonly counters = new Map<string, CounterModel>();
  /** Pending row operations found applied / not applied after a crash (both are allowed). */
  readonly crashOutcomes = { survived: 0, lost: 0 };

  constructor(
    readonly rowKeys: readonly string[],
    readonly counterKeys: readonly string[],
  ) {
    for (const k of rowKeys) this.rows.set(k, { acked: new Map(), pending: undefined, acks: 0, recent: [new Map()], history: [] });
    for (const k of counterKeys) this.counters.set(k, { acked: 0, pending: 0 });
  }

  /** Records that `op` was sent for `key`. REQUIRES: no operation of `key` pending. */
  send(key: string, op: RowOp): void {
    const row = this.row(key);
    if (row.pending !== undefined) throw new Error(`driver bug: ${key} already has ${row.pending.tag} pending when sending ${op.tag}`);
    row.pending = op;
  }

  /** Records that the pending operation of `key` was acknowledged. */
  ack(key: string): void {
    const row = this.row(key);
    if (row.pending === undefined) throw new Error(`driver bug: ack for ${key} with nothing pending`);
    row.acked = applyOp(row.acked, row.pending);
    row.acks++;
    row.recent.push(row.acked);
    if (row.recent.length > RECENT_STATES) row.recent.shift();
    remember(row.history, `${row.pending.tag} (${row.pending.via}) acked`);
    row.pending = undefined;
  }

  /**
   * Marks the start of a read that runs while writes go on: what
   * checkConcurrentRow and checkConcurrentCounter compare against.
   */
  readMark(): ReadMark {
    const rows = new Map<string, number>();
    for (const [k, r] of this.rows) rows.set(k, r.acks);
    const counters = new Map<string, number>();
    for (const [k, c] of this.counters) counters.set(k, c.acked);
    return { rows, counters };
  }

  /**
   * Checks a row read while writes were in flight (the read started at
   * `mark` and has just completed): it must show a state the row passed
   * through meanwhile, or the pending operation applied in full. Does not
   * change the expected state. Empty when fine or when too many writes to
   * the row happened meanwhile to tell.
   */
  checkConcurrentRow(mark: ReadMark, key: string, observed: ObservedRow | undefined): string[] {
    const row = this.row(key);
    const { seen, problems } = parseObserved(key, observed);
    const since = mark.rows.get(key) ?? 0;
    const first = row.recent.length - 1 - (row.acks - since);
    if (first < 0) return problems;
    const allowed = row.recent.slice(first);
    if (row.pending !== undefined) allowed.push(applyOp(row.acked, row.pending));
    if (problems.length === 0 && !allowed.some((a) => sameState(a, seen))) {
      problems.push(
        `${key}: a read during the load saw ${render(seen)}, but the row was ${allowed.map(render).join(' or ')} while it ran; history: ${row.history.join(', ')}`,
      );
    }
    return problems;
  }

  checkConcurrentCounter(mark: ReadMark, key: string, value: number | undefined): string[] {
    const c = this.counter(key);
    const low = mark.counters.get(key) ?? 0;
    const v = value ?? 0;
    if (v < low || v > c.acked + c.pending) {
      return [
        `counter ${key}: a read during the load saw ${v}, but it was at least ${low} when the read started and at most ${c.acked + c.pending} when it ended`,
      ];
    }
    return [];
  }

  /** Forgets a pending operation that was never sent. */
  cancel(key: string): void {
    this.row(key).pending = undefined;
  }

  /** True when `key` has an operation in flight (or one left unresolved by a crash). */
  isPending(key: string): boolean {
    return this.row(key).pending !== undefined;
  }

  sendIncrement(key: string): void {
    this.counter(key).pending++;
  }

  ackIncrement(key: string): void {
    const c = this.counter(key);
    c.pending--;
    c.acked++;
  }

  /**
   * Checks one row as read after recovery; returns what is wrong (empty when
   * it is one of the allowed states) and adopts the observed state.
   */
  verifyRow(key: string, observed: ObservedRow | undefined): string[] {
    const row = this.row(key);
    const { seen, problems } = parseObserved(key, observed);
    const allowed: { what: string; state: RowState }[] = [{ what: 'the acknowledged state', state: row.acked }];
    if (row.pending !== undefined)
      allowed.push({ what: `pending ${row.pending.tag} (${row.pending.via}) applied`, state: applyOp(row.acked, row.pending) });
    const match = allowed.find((a) => sameState(a.state, seen));
    if (match === undefined && problems.length === 0) {
      const expected = allowed.map((a) => `${a.what}: ${render(a.state)}`).join(' or ');
      problems.push(`${key}: read ${render(seen)}, expected ${expected}; history: ${row.history.join(', ') || '(none)'}`);
    }
    if (row.pending !== undefined && match !== undefined) {
      const fate = sameState(allowed[0]!.state, allowed[1]!.state)
        ? 'changed nothing across'
        : match === allowed[0]
          ? 'was lost in'
          : 'survived';
      if (fate === 'survived') this.crashOutcomes.survived++;
      if (fate === 'was lost in') this.crashOutcomes.lost++;
      remember(row.history, `${row.pending.tag} (${row.pending.via}) ${fate} the crash`);
    }
    row.acked = seen;
    row.acks++;
    row.recent.push(seen);
    if (row.recent.length > RECENT_STATES) row.recent.shift();
    row.pending = undefined;
    return problems;
  }

  /** Checks a counter's value after recovery (undefined: absent, i.e. 0) and adopts it. */
  verifyCounter(key: string, value: number | undefined): string[] {
    const c = this.counter(key);
    const v = value ?? 0;
    const problems: string[] = [];
    if (v < c.acked || v > c.acked + c.pending) {
      problems.push(`counter ${key} = ${v}, expected ${c.acked} acknowledged increments plus at most ${c.pending} unacknowledged ones`);
    }
    c.acked = v;
    c.pending = 0;
    return problems;
  }

  /** Rows that should exist (non-empty acknowledged state), for sanity checks. */
  liveRowCount(): number {
    let n = 0;
    for (const r of this.rows.values()) if (r.acked.size > 0) n++;
    return n;
  }

  private row(key: string): RowModel {
    const row = this.rows.get(key);
    if (row === undefined) throw new Error(`unknown row ${key}`);
    return row;
  }

  private counter(key: string): CounterModel {
    const c = this.counters.get(key);
    if (c === undefined) throw new Error(`unknown counter ${key}`);
    return c;
  }
}

/** What a read returned, as column → tag, with anything malformed. */
function parseObserved(key: string, observed: ObservedRow | undefined): { seen: Map<string, string>; problems: string[] } {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [column, cells] of observed ?? new Map()) {
    if (cells.length !== 1) problems.push(`${key} ${column}: ${cells.length} cells returned under a max-versions-1 GC rule`);
    const newest = cells[0];
    if (newest === undefined) continue;
    const parsed = parseCellValue(column, newest.value);
    if ('error' in parsed) problems.push(`${key} ${parsed.error}`);
    else seen.set(column, parsed.tag);
  }
  return { seen, problems };
}

function sameState(a: RowState, b: RowState): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function render(state: RowState): string {
  if (state.size === 0) return '{} (no cells)';
  return `{${[...state.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}}`;
}

function remember(history: string[], event: string): void {
  history.push(event);
  if (history.length > 6) history.shift();
}

/**
 * Which extra tables exist: created and deleted during the load, one admin
 * operation per table at a time. After a crash a table must exist if its
 * creation was acknowledged (and no deletion is pending), and must not if
 * its deletion was.
 */
export class ExpectedTables {
  private readonly tables = new Map<string, { exists: boolean; pending: 'create' | 'delete' | undefined }>();
  private created = 0;

  /** A new table id to create, recorded as pending. */
  sendCreate(): string {
    const id = `extra-${(++this.created).toString(36)}`;
    this.tables.set(id, { exists: false, pending: 'create' });
    return id;
  }

  /** An existing table with nothing pending, recorded as being deleted; undefined if there is none. */
  sendDelete(pick: (ids: readonly string[]) => string): string | undefined {
    const candidates = [...this.tables].filter(([, t]) => t.exists && t.pending === undefined).map(([id]) => id);
    if (candidates.length === 0) return undefined;
    const id = pick(candidates);
    this.tables.get(id)!.pending = 'delete';
    return id;
  }

  ack(id: string): void {
    const t = this.tables.get(id)!;
    t.exists = t.pending === 'create';
    t.pending = undefined;
  }

  /** How many tables exist or are being created. */
  liveCount(): number {
    let n = 0;
    for (const t of this.tables.values()) if (t.exists || t.pending === 'create') n++;
    return n;
  }

  /** Checks the extra tables that exist after recovery and adopts what it saw. */
  verify(present: ReadonlySet<string>): string[] {
    const problems: string[] = [];
    for (const id of present) if (!this.tables.has(id)) problems.push(`table ${id} exists but was never created`);
    for (const [id, t] of this.tables) {
      const now = present.has(id);
      const allowed = t.pending === undefined ? [t.exists] : [t.exists, t.pending === 'create'];
      if (!allowed.includes(now)) {
        problems.push(
          `table ${id} ${now ? 'exists' : 'is missing'}, but its ${t.exists ? 'creation' : 'deletion'} was acknowledged${t.pending ? ` (${t.pending} pending)` : ''}`,
        );
      }
      t.exists = now;
      t.pending = undefined;
    }
    return problems;
  }
}
