import { beforeAll, describe, expect, it } from 'vitest';
import type { Table } from '@google-cloud/bigtable';
import { expectedOn } from '../harness/divergences.js';
import { outcome, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { rawReadRows, rawUnary } from '../harness/raw.js';
import { readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

/**
 * Request validation that the protos document, through the Node client's
 * raw GAPIC surface where its handwritten one cannot express the request.
 */
describe.each(selectedTargets())('request validation (%s)', (kind) => {
  const ctx = useTarget(kind);
  let table: Table;

  beforeAll(async () => {
    table = ctx.instance.table(uniqueTableId('validation'));
    await table.create({ families: ['cf'] });
    await table.insert([{ key: 'r', data: { cf: { a: { value: 'v', timestamp: new Date(1) } } } }]);
  });

  const data = (method: string, request: Record<string, unknown>) =>
    outcome(rawUnary(ctx.client, 'BigtableClient', method, { tableName: table.name, ...request }));
  const read = (request: Record<string, unknown>) => outcome(rawReadRows(ctx.client, { tableName: table.name, ...request }));
  const setCell = (timestampMicros: number) => ({
    setCell: { familyName: 'cf', columnQualifier: Buffer.from('a'), timestampMicros, value: Buffer.from('x') },
  });

  describe('mutations', () => {
    it('MutateRow needs at least one mutation', async () => {
      expect(await data('mutateRow', { rowKey: Buffer.from('r'), mutations: [] })).toBe(status.INVALID_ARGUMENT);
    });

    it('CheckAndMutateRow needs at least one true or false mutation', async () => {
      expect(await data('checkAndMutateRow', { rowKey: Buffer.from('r') })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'check-and-mutate-without-mutations', 'ok'),
      );
    });

    it('ReadModifyWriteRow needs at least one rule, and each rule an append or an increment', async () => {
      expect(await data('readModifyWriteRow', { rowKey: Buffer.from('r'), rules: [] })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'read-modify-write-without-rules', 'ok'),
      );
      expect(
        await data('readModifyWriteRow', { rowKey: Buffer.from('r'), rules: [{ familyName: 'cf', columnQualifier: Buffer.from('n') }] }),
      ).toBe(expectedOn(kind, status.INVALID_ARGUMENT, 'invalid-rmw-rule-code', status.UNKNOWN));
      // The Node client sends such a rule for increment(column, 0).
      expect(await outcome(table.row('r').increment('cf:n', 0))).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'invalid-rmw-rule-code', status.UNKNOWN),
      );
    });

    it('ReadModifyWriteRow into a missing family fails with NOT_FOUND', async () => {
      expect(
        await data('readModifyWriteRow', {
          rowKey: Buffer.from('r'),
          rules: [{ familyName: 'nope', columnQualifier: Buffer.from('n'), incrementAmount: 1 }],
        }),
      ).toBe(expectedOn(kind, status.NOT_FOUND, 'unknown-family-code', status.UNKNOWN));
    });

    it('rejects an inverted delete range and a negative timestamp other than -1, and changes nothing', async () => {
      const inverted = {
        deleteFromColumn: {
          familyName: 'cf',
          columnQualifier: Buffer.from('a'),
          timeRange: { startTimestampMicros: 5000, endTimestampMicros: 2000 },
        },
      };
      expect(await data('mutateRow', { rowKey: Buffer.from('r'), mutations: [inverted] })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'invalid-mutation-code', status.UNKNOWN),
      );
      expect(await data('mutateRow', { rowKey: Buffer.from('r'), mutations: [setCell(-2000)] })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'invalid-mutation-code', status.UNKNOWN),
      );
      // A row mutation is atomic: a bad mutation after a good one applies neither.
      expect(await data('mutateRow', { rowKey: Buffer.from('r'), mutations: [setCell(9000), setCell(-2000)] })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'invalid-mutation-code', status.UNKNOWN),
      );
      expect(await readRendered(table, { keys: ['r'] })).toEqual(
        expectedOn(kind, ['r cf:a @1000 "v"'], 'row-mutation-atomicity', ['r cf:a @9000 "x"', 'r cf:a @1000 "v"']),
      );
    });
  });

  describe('row filters', () => {
    it('accept a filter of exactly 20,480 bytes and reject a bigger one', async () => {
      // A row-key regex filter serializes as a 1-byte tag, a 3-byte length (16 KiB and up) and the pattern.
      const pattern = (n: number) => Buffer.from('r|' + 'x'.repeat(n - 2));
      expect(await read({ filter: { rowKeyRegexFilter: pattern(20_480 - 4) } })).toBe('ok');
      expect(await read({ filter: { rowKeyRegexFilter: pattern(20_480 - 3) } })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'filter-limits', 'ok'),
      );
    });

    it('reject filters nested deeper than 20', async () => {
      const nest = (depth: number) => {
        let f: Record<string, unknown> = { passAllFilter: true };
        for (let i = 0; i < depth; i++) f = { interleave: { filters: [f, { blockAllFilter: true }] } };
        return f;
      };
      expect(await read({ filter: nest(19) })).toBe('ok');
      expect(await read({ filter: nest(25) })).toBe(expectedOn(kind, status.INVALID_ARGUMENT, 'filter-limits', 'ok'));
    });

    it('check labels: [a-z0-9-]+, at most 15 characters, at most one per chain', async () => {
      expect(await read({ filter: { applyLabelTransformer: 'ok-label-15char' } })).toBe('ok');
      expect(await read({ filter: { applyLabelTransformer: 'Upper' } })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'label-validation', 'ok'),
      );
      expect(await read({ filter: { applyLabelTransformer: 'UPPER' } })).toBe(status.INVALID_ARGUMENT);
      expect(await read({ filter: { applyLabelTransformer: 'a'.repeat(16) } })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'label-validation', 'ok'),
      );
      expect(await read({ filter: { chain: { filters: [{ applyLabelTransformer: 'a' }, { applyLabelTransformer: 'b' }] } } })).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'label-validation', 'ok'),
      );
      // Labels on separate interleave branches go to separate copies: fine.
      expect(await read({ filter: { interleave: { filters: [{ applyLabelTransformer: 'a' }, { applyLabelTransformer: 'b' }] } } })).toBe(
        'ok',
      );
    });

    it('reject non-positive cell limits and sample probabilities outside (0, 1)', async () => {
      expect(await read({ filter: { cellsPerRowLimitFilter: 0 } })).toBe(status.INVALID_ARGUMENT);
      expect(await read({ filter: { cellsPerColumnLimitFilter: 0 } })).toBe(status.INVALID_ARGUMENT);
      for (const p of [0, 1, 1.5]) expect(await read({ filter: { rowSampleFilter: p } })).toBe(status.INVALID_ARGUMENT);
    });

    it('reject regexes RE2 does not support', async () => {
      expect(await read({ filter: { rowKeyRegexFilter: Buffer.from('(?=r)r') } })).toBe(status.INVALID_ARGUMENT);
      expect(await read({ filter: { valueRegexFilter: Buffer.from('(v)\\1') } })).toBe(status.INVALID_ARGUMENT);
      expect(await read({ filter: { rowKeyRegexFilter: Buffer.from('(?i)R') } })).toBe('ok');
    });
  });

  describe('row sets', () => {
    it('reject a row range whose start is after its end', async () => {
      expect(await read({ rows: { rowRanges: [{ startKeyClosed: Buffer.from('b'), endKeyOpen: Buffer.from('a') }] } })).toBe(
        status.INVALID_ARGUMENT,
      );
    });
  });
});
