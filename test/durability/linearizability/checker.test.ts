import { describe, expect, it } from 'vitest';
import { Random } from '../../../src/testing/random.js';
import { type Operation, checkLinearizable } from './checker.js';
import { ROW_MODEL, type RowInput, type RowOutput } from './row-model.js';

type Op = Operation<RowInput, RowOutput>;
const read = (call: number, ret: number, v: string | null, c = 0n): Op => ({
  input: { kind: 'read' },
  output: { kind: 'read', v, c },
  call,
  ret,
});
const write = (call: number, ret: number, value: string, known = true): Op => ({
  input: { kind: 'write', value },
  output: known ? { kind: 'write' } : undefined,
  call,
  ret: known ? ret : Infinity,
});
const cas = (call: number, ret: number, expected: string, value: string, matched: boolean): Op => ({
  input: { kind: 'cas', expected, value },
  output: { kind: 'cas', matched },
  call,
  ret,
});
const incr = (call: number, ret: number, c: bigint | undefined): Op => ({
  input: { kind: 'incr' },
  output: c === undefined ? undefined : { kind: 'incr', c },
  call,
  ret: c === undefined ? Infinity : ret,
});

describe('the linearizability checker', () => {
  it('accepts a sequential history that follows the model', () => {
    const h = [
      write(0, 1, 'a'),
      read(2, 3, 'a'),
      cas(4, 5, 'a', 'b', true),
      cas(6, 7, 'a', 'c', false),
      incr(8, 9, 1n),
      read(10, 11, 'b', 1n),
    ];
    expect(checkLinearizable(ROW_MODEL, h).linearizable).toBe(true);
  });

  it('rejects a stale read: the write had returned before the read began', () => {
    const h = [write(0, 1, 'a'), write(2, 3, 'b'), read(4, 5, 'a')];
    const result = checkLinearizable(ROW_MODEL, h);
    expect(result.linearizable).toBe(false);
    expect(result.longest?.ops.map((o) => o.input.kind)).toEqual(['write', 'write']);
  });

  it('accepts either order of overlapping writes, but not a read that sees both orders', () => {
    // a and b overlap; one reader sees b then a (a was last), another sees a: fine. Then b after a: not.
    expect(checkLinearizable(ROW_MODEL, [write(0, 10, 'a'), write(1, 11, 'b'), read(12, 13, 'a')]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [write(0, 10, 'a'), write(1, 11, 'b'), read(12, 13, 'b')]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [write(0, 10, 'a'), write(1, 11, 'b'), read(12, 13, 'a'), read(14, 15, 'b')]).linearizable).toBe(
      false,
    );
  });

  it('rejects two increments answering the same count, and a lost acknowledged increment', () => {
    expect(checkLinearizable(ROW_MODEL, [incr(0, 5, 1n), incr(1, 6, 1n)]).linearizable).toBe(false);
    expect(checkLinearizable(ROW_MODEL, [incr(0, 1, 1n), read(2, 3, null, 0n)]).linearizable).toBe(false);
  });

  it('lets an operation of unknown outcome take effect at any time after its call, or never', () => {
    // A write cut off by a crash: a read after it may see it or not, but once seen it cannot vanish.
    expect(checkLinearizable(ROW_MODEL, [write(0, 1, 'a'), write(2, 0, 'b', false), read(5, 6, 'b')]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [write(0, 1, 'a'), write(2, 0, 'b', false), read(5, 6, 'a')]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [write(0, 1, 'a'), write(2, 0, 'b', false), read(5, 6, 'b'), read(7, 8, 'a')]).linearizable).toBe(
      false,
    );
    // Not before its call.
    expect(checkLinearizable(ROW_MODEL, [read(0, 1, 'b'), write(2, 0, 'b', false)]).linearizable).toBe(false);
    // An increment that may have happened: the next acknowledged one answers 1 or 2.
    expect(checkLinearizable(ROW_MODEL, [incr(0, 0, undefined), incr(5, 6, 2n)]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [incr(0, 0, undefined), incr(5, 6, 1n)]).linearizable).toBe(true);
    expect(checkLinearizable(ROW_MODEL, [incr(0, 0, undefined), incr(5, 6, 3n)]).linearizable).toBe(false);
  });

  it('checks long concurrent histories made by a linearizable object, and finds one changed read in them', () => {
    const random = new Random(27);
    // A real object: each operation takes effect at one instant between its call and its return.
    let state = { v: null as string | null, c: 0n };
    const ops: Op[] = [];
    const inFlight: { input: RowInput; call: number; at: number; ret: number; client: number }[] = [];
    let t = 0;
    for (let client = 0; client < 6; client++) {
      const call = t++;
      inFlight.push({ input: { kind: 'read' }, call, at: call + random.int(0, 5), ret: call + random.int(6, 12), client });
    }
    let written = 0;
    while (ops.length < 600) {
      inFlight.sort((a, b) => a.at - b.at);
      const next = inFlight.shift()!;
      const { input } = next;
      let output: RowOutput;
      if (input.kind === 'read') output = { kind: 'read', v: state.v, c: state.c };
      else if (input.kind === 'write') {
        state = { v: input.value, c: state.c };
        output = { kind: 'write' };
      } else if (input.kind === 'cas') {
        const matched = state.v === input.expected;
        if (matched) state = { v: input.value, c: state.c };
        output = { kind: 'cas', matched };
      } else {
        state = { v: state.v, c: state.c + 1n };
        output = { kind: 'incr', c: state.c };
      }
      ops.push({ input, output, call: next.call, ret: next.ret, client: next.client });
      const call = Math.max(next.ret, next.at) + 1;
      const kind = random.pick(['read', 'write', 'cas', 'incr'] as const);
      const value = `w${written++}`;
      const newInput: RowInput =
        kind === 'read'
          ? { kind }
          : kind === 'write'
            ? { kind, value }
            : kind === 'cas'
              ? { kind, expected: state.v ?? 'none', value }
              : { kind };
      const at = call + random.int(0, 8);
      inFlight.push({ input: newInput, call, at, ret: at + random.int(0, 8), client: next.client });
    }
    const good = checkLinearizable(ROW_MODEL, ops);
    expect(good.linearizable).toBe(true);
    const i = ops.findIndex((o, j) => j > 300 && o.input.kind === 'read');
    const changed = ops.map((o, j) => (j === i ? { ...o, output: { kind: 'read' as const, v: 'never written', c: 0n } } : o));
    expect(checkLinearizable(ROW_MODEL, changed).linearizable).toBe(false);
  });
});
