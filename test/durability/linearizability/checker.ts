/**
 * A linearizability checker for histories of concurrent operations on one
 * object (a Bigtable row: single-row operations are atomic and strongly
 * consistent), after Wing & Gong's search with Lowe's memoisation, the
 * algorithm of Knossos and Porcupine: walk the history's calls and returns in
 * time order; at a call, try to linearize that operation now (the model must
 * accept its output from the current state); at a return whose operation is
 * not linearized yet, undo the last choice and try the next. A configuration
 * already seen (the same operations linearized, the same state) is not
 * searched twice.
 *
 * An operation whose outcome is unknown (the server was killed while it ran,
 * or the connection failed) has no return: it may take effect at any moment
 * after its call, or never. It is given a return after every other event and
 * an output the model accepts whatever the state; linearized last, it is the
 * same as never having happened.
 */

/** One operation of a history: when it was called and returned (ms), and what it answered. */
export interface Operation<I, O> {
  readonly input: I;
  /** undefined: the outcome is unknown (no answer, or an error that does not say whether it applied). */
  readonly output: O | undefined;
  readonly call: number;
  /** Infinity when the outcome is unknown. */
  readonly ret: number;
  /** Who ran it, for the report. */
  readonly client?: number;
}

/** A sequential specification: `step` says whether `input` answering `output` is legal from `state`, and the state after. */
export interface Model<S, I, O> {
  readonly init: S;
  /** output undefined: unknown, accept whatever the state (the operation's effect is applied as it would have been). */
  step(state: S, input: I, output: O | undefined): { readonly ok: boolean; readonly state: S };
  /** A state's identity for the memo (two equal states give the same key). */
  key(state: S): string;
}

export interface CheckResult<S, I, O> {
  readonly linearizable: boolean;
  /** Configurations searched (for the report). */
  readonly explored: number;
  /** When not linearizable: the longest prefix of operations that could be linearized, in order, and the state after it. */
  readonly longest?: { readonly ops: readonly Operation<I, O>[]; readonly state: S };
  /** True when the search gave up at `maxExplored` configurations (then `linearizable` is false and says nothing). */
  readonly gaveUp?: boolean;
}

interface Entry<I, O> {
  readonly kind: 'call' | 'return';
  readonly op: number;
  /** The matching call or return. */
  match?: Entry<I, O>;
  prev: Entry<I, O> | undefined;
  next: Entry<I, O> | undefined;
}

/** Checks one object's history against `model`. */
export function checkLinearizable<S, I, O>(
  model: Model<S, I, O>,
  history: readonly Operation<I, O>[],
  maxExplored = 5_000_000,
): CheckResult<S, I, O> {
  const n = history.length;
  // Calls and returns in time order; at the same instant a return comes first (the operations did not overlap).
  const events: { t: number; kind: 'call' | 'return'; op: number }[] = [];
  for (let i = 0; i < n; i++) {
    const op = history[i]!;
    if (!(op.ret >= op.call)) throw new Error(`operation ${i} returns (${op.ret}) before its call (${op.call})`);
    events.push({ t: op.call, kind: 'call', op: i }, { t: op.ret, kind: 'return', op: i });
  }
  // (At the same instant a return comes first: those operations did not overlap; but an operation's own return
  // follows its call.)
  events.sort(
    (a, b) => a.t - b.t || (a.op === b.op ? (a.kind === 'call' ? -1 : 1) : a.kind === b.kind ? a.op - b.op : a.kind === 'return' ? -1 : 1),
  );
  const head: Entry<I, O> = { kind: 'call', op: -1, prev: undefined, next: undefined };
  let tail = head;
  const calls: Entry<I, O>[] = new Array<Entry<I, O>>(n);
  for (const e of events) {
    const entry: Entry<I, O> = { kind: e.kind, op: e.op, prev: tail, next: undefined };
    tail.next = entry;
    tail = entry;
    if (e.kind === 'call') calls[e.op] = entry;
    else {
      entry.match = calls[e.op];
      calls[e.op]!.match = entry;
    }
  }
  const lift = (call: Entry<I, O>): void => {
    call.prev!.next = call.next;
    if (call.next !== undefined) call.next.prev = call.prev;
    const ret = call.match!;
    ret.prev!.next = ret.next;
    if (ret.next !== undefined) ret.next.prev = ret.prev;
  };
  const unlift = (call: Entry<I, O>): void => {
    const ret = call.match!;
    ret.prev!.next = ret;
    if (ret.next !== undefined) ret.next.prev = ret;
    call.prev!.next = call;
    if (call.next !== undefined) call.next.prev = call;
  };

  // The memo's key for the set of linearized operations: a 64-bit Zobrist hash (two random 32-bit words per
  // operation, XORed in and out), so that a key costs O(1) however long the history. A collision could only prune a
  // configuration wrongly, that is report a linearizable history as not (never the reverse), with odds ~2^-64.
  const zobristLo = new Uint32Array(n);
  const zobristHi = new Uint32Array(n);
  let seed = 0x9e3779b9;
  const next32 = (): number => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  for (let i = 0; i < n; i++) {
    zobristLo[i] = next32();
    zobristHi[i] = next32();
  }
  let setLo = 0;
  let setHi = 0;
  const toggle = (op: number): void => {
    setLo = (setLo ^ zobristLo[op]!) >>> 0;
    setHi = (setHi ^ zobristHi[op]!) >>> 0;
  };
  const memo = new Set<string>();
  const stack: { call: Entry<I, O>; state: S }[] = [];
  let state = model.init;
  let entry = head.next;
  let explored = 0;
  let longest: { ops: Operation<I, O>[]; state: S } = { ops: [], state };
  let longestLength = 0;
  while (head.next !== undefined) {
    if (entry === undefined) throw new Error('internal: ran off the end of the history');
    if (entry.kind === 'call') {
      const op = history[entry.op]!;
      const next = model.step(state, op.input, op.output);
      let tried = false;
      if (next.ok) {
        toggle(entry.op);
        const key = `${setLo.toString(36)}:${setHi.toString(36)}|${model.key(next.state)}`;
        if (!memo.has(key)) {
          memo.add(key);
          tried = true;
          if (++explored > maxExplored) return { linearizable: false, explored, gaveUp: true };
          stack.push({ call: entry, state });
          state = next.state;
          lift(entry);
          if (stack.length > longestLength) {
            // Copied at each new longest prefix (O(n^2) in all, a few million copies for a row's history), so that the
            // report shows exactly where the search got stuck.
            longestLength = stack.length;
            longest = { ops: stack.map((s) => history[s.call.op]!), state };
          }
          entry = head.next;
        } else toggle(entry.op);
      }
      if (!tried) entry = entry.next;
    } else {
      // A return whose operation is not linearized: what was chosen before it must change.
      const top = stack.pop();
      if (top === undefined) return { linearizable: false, explored, longest };
      state = top.state;
      toggle(top.call.op);
      unlift(top.call);
      entry = top.call.next;
    }
  }
  return { linearizable: true, explored };
}
