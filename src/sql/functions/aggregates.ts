import { BOOL, BYTES, FLOAT64, INT64, STRING, type SqlType, type SqlValue } from '../types.js';
import type { Operand } from '../values/coerce.js';
import { checkedInt64 } from '../values/cast.js';
import { compareValues } from '../values/compare.js';
import { type Resolution, type Signature, resolveSignatures, signatureText } from './registry.js';
import { isOrderable } from './operators.js';

/**
 * Aggregate functions. Every aggregate but COUNT(*) and ARRAY_AGG skips NULL inputs; over no (non-NULL) input
 * COUNT is 0 and the others NULL. DISTINCT is applied by the executor before `add`.
 */

export interface Accumulator {
  add(args: readonly SqlValue[]): void;
  result(): SqlValue;
}

export interface AggregateFunction {
  readonly name: string;
  readonly signatureText: string;
  resolve(args: readonly Operand[]): Resolution | undefined;
  create(resultType: SqlType): Accumulator;
}

function defineAggregate(name: string, signatures: readonly Signature[], create: (resultType: SqlType) => Accumulator): AggregateFunction {
  return { name, signatureText: signatureText(name, signatures), resolve: (args) => resolveSignatures(signatures, args), create };
}

/** Skips calls whose first argument is NULL. */
function nonNull(acc: Accumulator): Accumulator {
  return { add: (args) => (args[0] === null ? undefined : acc.add(args)), result: () => acc.result() };
}

export const COUNT_STAR = defineAggregate('$count_star', [{ params: [], result: INT64 }], () => {
  let n = 0n;
  return { add: () => void n++, result: () => n };
});

export const COUNT = defineAggregate('COUNT', [{ params: ['ANY'], result: INT64 }], () => {
  let n = 0n;
  return nonNull({ add: () => void n++, result: () => n });
});

export const COUNTIF = defineAggregate('COUNTIF', [{ params: [BOOL], result: INT64 }], () => {
  let n = 0n;
  return { add: ([b]) => void (b === true ? n++ : 0), result: () => n };
});

export const SUM = defineAggregate(
  'SUM',
  [
    { params: [INT64], result: INT64 },
    { params: [FLOAT64], result: FLOAT64 },
  ],
  (t) => {
    let seen = false;
    let i = 0n;
    let f = 0;
    return nonNull({
      add: ([v]) => {
        seen = true;
        if (t.kind === 'INT64') i = checkedInt64(i + (v as bigint));
        else f += v as number;
      },
      result: () => (!seen ? null : t.kind === 'INT64' ? i : f),
    });
  },
);

export const AVG = defineAggregate('AVG', [{ params: [FLOAT64], result: FLOAT64 }], () => {
  let n = 0;
  let mean = 0;
  return nonNull({
    add: ([v]) => {
      n++;
      mean += ((v as number) - mean) / n;
    },
    result: () => (n === 0 ? null : mean),
  });
});

function extreme(name: string, keep: (c: number) => boolean): AggregateFunction {
  const sigs: Signature[] = [{ params: ['T'], result: (_a, t) => t! }];
  return {
    name,
    signatureText: signatureText(name, sigs),
    resolve: (args) => {
      const r = resolveSignatures(sigs, args);
      return r !== undefined && isOrderable(r.result) ? r : undefined;
    },
    create: () => {
      let best: SqlValue = null;
      let nan = false;
      return nonNull({
        add: ([v]) => {
          if (typeof v === 'number' && Number.isNaN(v)) nan = true;
          else if (best === null || keep(compareValues(v!, best))) best = v!;
        },
        result: () => (nan ? NaN : best),
      });
    },
  };
}
export const MIN = extreme('MIN', (c) => c < 0);
export const MAX = extreme('MAX', (c) => c > 0);

export const ANY_VALUE = defineAggregate('ANY_VALUE', [{ params: ['ANY'], result: (a) => a[0]! }], () => {
  let v: SqlValue = null;
  return nonNull({ add: ([x]) => void (v === null ? (v = x!) : 0), result: () => v });
});

export const ARRAY_AGG = defineAggregate('ARRAY_AGG', [{ params: ['ANY'], result: (a) => ({ kind: 'ARRAY', element: a[0]! }) }], () => {
  const items: SqlValue[] = [];
  return { add: ([x]) => void items.push(x!), result: () => (items.length === 0 ? null : items) };
});

function logical(name: string, and: boolean): AggregateFunction {
  return defineAggregate(name, [{ params: [BOOL], result: BOOL }], () => {
    let v: boolean | null = null;
    return nonNull({
      add: ([b]) => void (v = v === null ? (b as boolean) : and ? v && (b as boolean) : v || (b as boolean)),
      result: () => v,
    });
  });
}
export const LOGICAL_AND = logical('LOGICAL_AND', true);
export const LOGICAL_OR = logical('LOGICAL_OR', false);

function bitwise(name: string, op: (a: bigint, b: bigint) => bigint): AggregateFunction {
  return defineAggregate(name, [{ params: [INT64], result: INT64 }], () => {
    let v: bigint | null = null;
    return nonNull({ add: ([x]) => void (v = v === null ? (x as bigint) : BigInt.asIntN(64, op(v, x as bigint))), result: () => v });
  });
}
export const BIT_AND = bitwise('BIT_AND', (a, b) => a & b);
export const BIT_OR = bitwise('BIT_OR', (a, b) => a | b);
export const BIT_XOR = bitwise('BIT_XOR', (a, b) => a ^ b);

export const STRING_AGG = defineAggregate(
  'STRING_AGG',
  [
    { params: [STRING, STRING], optionalFrom: 1, result: STRING },
    { params: [BYTES, BYTES], optionalFrom: 1, result: BYTES },
  ],
  (t) => {
    const items: SqlValue[] = [];
    let sep: SqlValue = t.kind === 'STRING' ? ',' : new Uint8Array([0x2c]);
    return nonNull({
      add: ([x, s]) => {
        if (s !== undefined && s !== null) sep = s;
        items.push(x!);
      },
      result: () => {
        if (items.length === 0) return null;
        if (t.kind === 'STRING') return (items as string[]).join(sep as string);
        const parts: Uint8Array[] = [];
        items.forEach((e, i) => parts.push(...(i > 0 ? [sep as Uint8Array] : []), e as Uint8Array));
        return new Uint8Array(Buffer.concat(parts));
      },
    });
  },
);

export const AGGREGATE_FUNCTIONS: readonly AggregateFunction[] = [
  COUNT,
  COUNTIF,
  SUM,
  AVG,
  MIN,
  MAX,
  ANY_VALUE,
  ARRAY_AGG,
  LOGICAL_AND,
  LOGICAL_OR,
  BIT_AND,
  BIT_OR,
  BIT_XOR,
  STRING_AGG,
];
