import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  type MutationListContext,
  type MutationProblemScope,
  type SchemaView,
  findMutationProblem,
  tooManyMutationsMessage,
  validateMutations,
  validateReadModifyWriteRules,
  validateRowKey,
} from './validate-mutation.js';
import type { ColumnFamily } from './family.js';
import type { Mutation, ReadModifyWriteRule } from './mutation.js';
import { BYTES_TYPE } from './value-type.js';
import { type ErrorCode, isTabletopError } from './errors.js';
import { HLL_VALUE_TYPE, createHll, encodeInt64 } from './aggregate/index.js';

const TABLE = 'projects/p/instances/i/tables/t';
const FAMILIES: ColumnFamily[] = [
  { name: 'plain', gcRule: undefined, valueType: BYTES_TYPE },
  { name: 'sum', gcRule: undefined, valueType: { kind: 'aggregate', aggregator: 'sum', input: 'int64' } },
  { name: 'hll', gcRule: undefined, valueType: { kind: 'aggregate', aggregator: 'hll', input: 'bytes' } },
];
const schema: SchemaView = { family: (name) => FAMILIES.find((f) => f.name === name), tableName: TABLE };
const bare: SchemaView = { family: schema.family };

const v = (s: string): Uint8Array => new TextEncoder().encode(s);
const set = (family: string, timestamp = 1000, value = v('x'), qualifier = 'c'): Mutation => ({
  kind: 'setCell',
  family,
  qualifier,
  timestamp,
  value,
});
const add = (family: string, input: Extract<Mutation, { kind: 'addToCell' }>['input'], timestamp = 1000): Mutation => ({
  kind: 'addToCell',
  family,
  qualifier: 'c',
  timestamp,
  input,
});
const merge = (family: string, input: Uint8Array, timestamp = 1000): Mutation => ({
  kind: 'mergeToCell',
  family,
  qualifier: 'c',
  timestamp,
  input,
});
const delCol = (start: number, end: number | undefined, family = 'plain'): Mutation => ({
  kind: 'deleteFromColumn',
  family,
  qualifier: 'c',
  start,
  end,
});
const int = (value: bigint) => ({ kind: 'int', value }) as const;
const bytes = (value: Uint8Array) => ({ kind: 'bytes', value }) as const;

const row = (key: string, what: string): string => `Error while mutating the row '${key}' (${TABLE}) : ${what}`;
const hllState = (): Uint8Array => {
  const s = createHll(HLL_VALUE_TYPE.bytes);
  s.addBytes(v('a'));
  return s.serialize();
};

interface Case {
  readonly name: string;
  readonly key?: string;
  readonly mutations: readonly Mutation[];
  readonly context?: MutationListContext;
  readonly schema?: SchemaView;
  /** undefined: valid. */
  readonly expect?: { scope: MutationProblemScope; code: ErrorCode; message: string | RegExp };
}

const CASES: Case[] = [
  { name: 'SetCell into a plain family', mutations: [set('plain')] },
  { name: 'SetCell at server time', mutations: [set('plain', -1)] },
  {
    name: 'every kind, well formed',
    mutations: [
      set('plain'),
      delCol(0, undefined),
      delCol(1000, 5000),
      { kind: 'deleteFromFamily', family: 'sum' },
      { kind: 'deleteFromRow' },
      add('sum', int(5n)),
      merge('sum', encodeInt64(5n)),
      add('hll', bytes(v('u'))),
      merge('hll', hllState()),
    ],
  },
  { name: 'empty qualifier and value are fine', mutations: [set('plain', 0, new Uint8Array(), '')] },
  { name: 'MergeToCell with an empty state (production: no effect)', mutations: [merge('sum', new Uint8Array())] },
  { name: 'an empty branch when allowed', mutations: [], context: { allowEmpty: true } },
  {
    name: 'empty row key',
    key: '',
    mutations: [set('plain')],
    expect: { scope: 'entry', code: 'InvalidArgument', message: 'Row keys must be non-empty' },
  },
  {
    name: 'row key over 4 KiB',
    key: 'k'.repeat(4097),
    mutations: [set('plain')],
    expect: { scope: 'entry', code: 'InvalidArgument', message: 'Row key is too large: 4097 bytes; limit 4096' },
  },
  { name: 'row key of exactly 4 KiB', key: 'k'.repeat(4096), mutations: [set('plain')] },
  { name: 'no mutations', mutations: [], expect: { scope: 'entry', code: 'InvalidArgument', message: 'No mutations provided' } },
  {
    name: 'timestamp not a multiple of 1000',
    mutations: [set('plain'), set('plain', 32685506681)],
    expect: {
      scope: 'entry',
      code: 'InvalidArgument',
      message:
        "Error in field 'Mutation list' : Error in element #1 : Timestamp granularity mismatch. Expected a multiple of 1000 (millisecond granularity), but got 32685506681.",
    },
  },
  {
    name: 'negative timestamp other than -1',
    mutations: [set('plain', -1000)],
    expect: {
      scope: 'entry',
      code: 'InvalidArgument',
      message: /element #0 : Invalid timestamp -1000: timestamps are non-negative microseconds, or -1 for the server time$/,
    },
  },
  {
    name: '-1 outside SetCell',
    mutations: [add('sum', int(1n), -1)],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /Invalid timestamp -1: timestamps are non-negative microseconds$/ },
  },
  {
    name: 'timestamp beyond what tabletop can hold',
    mutations: [set('plain', 2 ** 53)],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /tabletop stores timestamps up to 9007199254740991 microseconds/ },
  },
  {
    name: 'MergeToCell timestamp granularity',
    mutations: [merge('sum', encodeInt64(1n), 1500)],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /Timestamp granularity mismatch/ },
  },
  {
    name: 'time range start after end',
    mutations: [delCol(5000, 2000)],
    expect: {
      scope: 'entry',
      code: 'InvalidArgument',
      message: /Invalid time range: start_timestamp_micros 5000 is after end_timestamp_micros 2000/,
    },
  },
  {
    name: 'time range end granularity',
    mutations: [delCol(0, 2001)],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /but got 2001\.$/ },
  },
  {
    name: 'qualifier over 16 KiB',
    mutations: [set('plain', 0, v('x'), 'q'.repeat(16 * 1024 + 1))],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /Column qualifier is too large: 16385 bytes; limit 16384/ },
  },
  {
    name: 'value over 100 MiB',
    mutations: [set('plain', 0, new Uint8Array(100 * 1024 * 1024 + 1))],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /Cell value is too large: 104857601 bytes; limit 104857600/ },
  },
  {
    name: 'unknown family',
    mutations: [set('plain'), set('nope')],
    expect: { scope: 'batch', code: 'NotFound', message: `${row('r', 'Requested column family not found.')} (family "nope")` },
  },
  {
    name: 'unknown family without a table name',
    schema: bare,
    mutations: [{ kind: 'deleteFromFamily', family: 'nope' }],
    expect: { scope: 'batch', code: 'NotFound', message: /^Error while mutating the row 'r' : Requested column family not found\./ },
  },
  {
    name: 'SetCell into an aggregate family',
    mutations: [add('sum', int(1n)), set('sum')],
    expect: {
      scope: 'batch',
      code: 'InvalidArgument',
      message: row(
        'r',
        "Column family type mismatch: family 'sum' holds sum over int64 aggregates; write it with AddToCell or MergeToCell",
      ),
    },
  },
  {
    name: 'AddToCell into a plain family',
    mutations: [add('plain', int(1n))],
    expect: {
      scope: 'batch',
      code: 'InvalidArgument',
      message:
        /^Error while mutating the row 'r' \(projects\/p\/instances\/i\/tables\/t\) : Column family type mismatch: family 'plain' holds plain values/,
    },
  },
  {
    name: 'MergeToCell into a plain family',
    mutations: [merge('plain', encodeInt64(1n))],
    expect: {
      scope: 'batch',
      code: 'InvalidArgument',
      message: /Column family type mismatch: family 'plain' holds plain values; MergeToCell needs an aggregate family/,
    },
  },
  {
    name: 'MergeToCell of 3 bytes into an int64 family',
    mutations: [set('plain'), merge('sum', new Uint8Array(3))],
    expect: {
      scope: 'batch',
      code: 'InvalidArgument',
      message:
        /^Error while mutating the row 'r' .* : Column family type mismatch: MergeToCell into a sum over int64 family takes an 8-byte big-endian int64, got 3 bytes$/,
    },
  },
  {
    name: 'MergeToCell of a non-sketch into an HLL family',
    mutations: [merge('hll', encodeInt64(1n))],
    expect: { scope: 'batch', code: 'InvalidArgument', message: /Column family type mismatch: Invalid HLL\+\+ state/ },
  },
  {
    name: 'AddToCell with a bytes input into an int64 family',
    mutations: [set('plain'), add('sum', bytes(v('1')))],
    expect: {
      scope: 'request',
      code: 'InvalidArgument',
      message: "Error in field 'Mutation list' : Error in element #1 : Error in field 'input' : must use `int_value`",
    },
  },
  {
    name: 'AddToCell with an int input into a bytes HLL family',
    mutations: [add('hll', int(1n))],
    expect: {
      scope: 'request',
      code: 'InvalidArgument',
      message: "Error in field 'Mutation list' : Error in element #0 : Error in field 'input' : must use `bytes_value`",
    },
  },
  {
    name: 'wrong input kind in a MutateRows entry names the entry',
    mutations: [add('sum', bytes(v('1')))],
    context: { entry: 1 },
    expect: {
      scope: 'request',
      code: 'InvalidArgument',
      message:
        "Error in field 'Entry list' : Error in element #1 : Error in field 'Mutation list' : Error in element #0 : Error in field 'input' : must use `int_value`",
    },
  },
  {
    name: 'wrong input kind in a CheckAndMutateRow branch',
    mutations: [set('plain'), add('sum', bytes(v('1')))],
    context: { field: 'true mutation list' },
    expect: {
      scope: 'request',
      code: 'InvalidArgument',
      message: "Error in field 'true mutation list' : Error in element #1 : Error in field 'input' : must use `int_value`",
    },
  },
  {
    name: 'request problems come before row problems',
    key: '',
    mutations: [set('nope', 1), add('sum', bytes(v('1')))],
    expect: { scope: 'request', code: 'InvalidArgument', message: /must use `int_value`/ },
  },
  {
    name: 'field problems come before schema problems',
    mutations: [set('nope'), set('plain', 7)],
    expect: { scope: 'entry', code: 'InvalidArgument', message: /element #1 : Timestamp granularity mismatch/ },
  },
];

describe('findMutationProblem (data-driven)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const problem = findMutationProblem(c.schema ?? schema, c.key ?? 'r', c.mutations, c.context);
      if (c.expect === undefined) {
        expect(problem?.error.message).toBeUndefined();
        expect(() => validateMutations(c.schema ?? schema, c.key ?? 'r', c.mutations, c.context)).not.toThrow();
        return;
      }
      expect(problem?.scope).toBe(c.expect.scope);
      expect(problem?.error.code).toBe(c.expect.code);
      if (typeof c.expect.message === 'string') expect(problem?.error.message).toBe(c.expect.message);
      else expect(problem?.error.message).toMatch(c.expect.message);
      expect(() => validateMutations(c.schema ?? schema, c.key ?? 'r', c.mutations, c.context)).toThrow(problem!.error);
    });
  }

  it('accepts 100,000 mutations and rejects 100,001 with the production message', () => {
    const many = Array.from({ length: 100_000 }, () => ({ kind: 'deleteFromRow' }) as const);
    expect(findMutationProblem(schema, 'r', many)).toBeUndefined();
    const problem = findMutationProblem(schema, 'r', [...many, { kind: 'deleteFromRow' }]);
    expect(problem?.error.message).toBe('Too many mutations: 100001 provided; limit 100000');
    expect(tooManyMutationsMessage(250_000)).toBe('Too many mutations: 250000 provided; limit 100000');
  });

  it('prints binary row keys readably', () => {
    const problem = findMutationProblem(schema, 'a\x00\xff', [set('nope')]);
    expect(problem?.error.message).toMatch(/^Error while mutating the row 'a\\x00\\xff'/);
  });

  it('accepts any millisecond timestamp and any qualifier within limits (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_007_199_254_740 }), fc.string({ maxLength: 64 }), (ms, q) => {
        expect(findMutationProblem(schema, 'r', [set('plain', ms * 1000, v('x'), q)])).toBeUndefined();
      }),
    );
  });

  it('rejects every timestamp that is not a non-negative multiple of 1000 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).filter((t) => t !== -1 && (t < 0 || t % 1000 !== 0)),
        (ts) => {
          const p = findMutationProblem(schema, 'r', [add('sum', int(1n), ts)]);
          expect(p?.scope).toBe('entry');
          expect(p?.error.code).toBe('InvalidArgument');
        },
      ),
    );
  });
});

describe('validateRowKey', () => {
  it('rejects empty and oversized keys', () => {
    expect(() => validateRowKey('')).toThrow('Row keys must be non-empty');
    expect(() => validateRowKey('x'.repeat(4097))).toThrow(/4097 bytes/);
    expect(() => validateRowKey('\x00')).not.toThrow();
  });
});

describe('validateReadModifyWriteRules', () => {
  const inc = (family: string): ReadModifyWriteRule => ({ kind: 'increment', family, qualifier: 'c', amount: 1n });
  const app = (family: string, value = v('x')): ReadModifyWriteRule => ({ kind: 'append', family, qualifier: 'c', value });
  const codeAndMessage = (rules: ReadModifyWriteRule[], key = 'r'): [ErrorCode | undefined, string | undefined] => {
    try {
      validateReadModifyWriteRules(schema, key, rules);
      return [undefined, undefined];
    } catch (e) {
      if (!isTabletopError(e)) throw e;
      return [e.code, e.message];
    }
  };

  it('accepts rules on plain families', () => {
    expect(codeAndMessage([inc('plain'), app('plain')])).toEqual([undefined, undefined]);
  });

  it('rejects rules on aggregate families with the row-level type mismatch', () => {
    expect(codeAndMessage([inc('plain'), inc('sum')])).toEqual([
      'InvalidArgument',
      row(
        'r',
        "Column family type mismatch: family 'sum' holds sum over int64 aggregates; ReadModifyWriteRow works on plain families only",
      ),
    ]);
    expect(codeAndMessage([app('hll')])[0]).toBe('InvalidArgument');
  });

  it('rejects unknown families with NotFound', () => {
    expect(codeAndMessage([inc('nope')])).toEqual(['NotFound', `${row('r', 'Requested column family not found.')} (family "nope")`]);
  });

  it('rejects empty requests, bad keys, oversized qualifiers and amounts outside int64', () => {
    expect(codeAndMessage([])).toEqual(['InvalidArgument', 'No rules provided']);
    expect(codeAndMessage([inc('plain')], '')).toEqual(['InvalidArgument', 'Row keys must be non-empty']);
    expect(codeAndMessage([{ ...inc('plain'), qualifier: 'q'.repeat(16385) }])[1]).toMatch(
      /^Error in field 'rules' : Error in element #0 : Column qualifier is too large/,
    );
    expect(codeAndMessage([app('plain'), { kind: 'increment', family: 'plain', qualifier: 'c', amount: 1n << 63n }])[1]).toMatch(
      /element #1 : Increment amount 9223372036854775808 does not fit in int64/,
    );
    expect(codeAndMessage(Array.from({ length: 100_001 }, () => inc('plain')))[1]).toBe('Too many rules: 100001 provided; limit 100000');
  });
});
