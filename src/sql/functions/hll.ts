import { HLL_VALUE_TYPE, createHll, hllEstimate, mergeAggregate } from '../../model/aggregate/index.js';
import { isTabletopError } from '../../model/errors.js';
import type { ValueType } from '../../model/value-type.js';
import { BYTES, INT64, STRING, type SqlValue } from '../types.js';
import { evalError } from '../values/errors.js';
import type { AggregateFunction } from './aggregates.js';
import { type ScalarFunction, type Signature, defineFunction, resolveSignatures, signatureText } from './registry.js';

/**
 * HLL_COUNT: HyperLogLog++ sketches in the format of Bigtable's HLL aggregate families (model/aggregate), so that
 * `HLL_COUNT.EXTRACT(family['q'])` reads an aggregate cell and `HLL_COUNT.MERGE` combines cells across rows.
 * A sketch that does not parse is a runtime (OUT_OF_RANGE) error.
 */

const HLL_TYPE: ValueType = { kind: 'aggregate', aggregator: 'hll', input: 'bytes' };

function guarded<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isTabletopError(e)) throw evalError(`${what}: ${e.message}`);
    throw e;
  }
}

export const HLL_COUNT_EXTRACT: ScalarFunction = defineFunction({
  name: 'HLL_COUNT.EXTRACT',
  signatures: [{ params: [BYTES], result: INT64 }],
  eval: ([s]) =>
    (s as Uint8Array).byteLength === 0 ? 0n : BigInt(Math.round(guarded('HLL_COUNT.EXTRACT', () => hllEstimate(s as Uint8Array)))),
});

function mergeAggregateFunction(name: string, partial: boolean): AggregateFunction {
  const sigs: Signature[] = [{ params: [BYTES], result: partial ? BYTES : INT64 }];
  return {
    name,
    signatureText: signatureText(name, sigs),
    resolve: (args) => resolveSignatures(sigs, args),
    create: () => {
      let state: Uint8Array | undefined;
      return {
        add: ([s]) => {
          if (s === null || s === undefined) return;
          state = guarded(name, () => mergeAggregate(HLL_TYPE, state, s as Uint8Array));
        },
        result: (): SqlValue => {
          if (partial) return state ?? null;
          return state === undefined ? 0n : BigInt(Math.round(hllEstimate(state)));
        },
      };
    },
  };
}
export const HLL_COUNT_MERGE = mergeAggregateFunction('HLL_COUNT.MERGE', false);
export const HLL_COUNT_MERGE_PARTIAL = mergeAggregateFunction('HLL_COUNT.MERGE_PARTIAL', true);

const INIT_SIGNATURES: Signature[] = [
  { params: [INT64, INT64], optionalFrom: 1, result: BYTES },
  { params: [STRING, INT64], optionalFrom: 1, result: BYTES },
  { params: [BYTES, INT64], optionalFrom: 1, result: BYTES },
];

export const HLL_COUNT_INIT: AggregateFunction = {
  name: 'HLL_COUNT.INIT',
  signatureText: signatureText('HLL_COUNT.INIT', INIT_SIGNATURES),
  resolve: (args) => resolveSignatures(INIT_SIGNATURES, args),
  create: () => {
    let sketch: ReturnType<typeof createHll> | undefined;
    return {
      add: ([x, precision]) => {
        if (x === null || x === undefined) return;
        sketch ??= guarded('HLL_COUNT.INIT', () =>
          createHll(
            typeof x === 'bigint' ? HLL_VALUE_TYPE.int64 : HLL_VALUE_TYPE.bytes,
            precision === undefined || precision === null ? {} : { precision: Number(precision as bigint) },
          ),
        );
        if (typeof x === 'bigint') sketch.addInt64(x);
        else sketch.addBytes(typeof x === 'string' ? new Uint8Array(Buffer.from(x, 'utf8')) : (x as Uint8Array));
      },
      result: () => sketch?.serialize() ?? null,
    };
  },
};

export const HLL_AGGREGATES: readonly AggregateFunction[] = [HLL_COUNT_MERGE, HLL_COUNT_MERGE_PARTIAL, HLL_COUNT_INIT];
