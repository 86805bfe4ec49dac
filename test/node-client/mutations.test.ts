import { describe, expect, it } from 'vitest';
import type { Table } from '@google-cloud/bigtable';
import { allowedOn, expectedOn } from '../harness/divergences.js';
import { entryFailures, expectCode, outcome, singleMutationOutcome, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { rawUnary } from '../harness/raw.js';
import { columnInRange, int64, readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

const at = (value: string, ms: number) => ({ value, timestamp: new Date(ms) });

describe.each(selectedTargets())('mutations through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);

  async function newTable(families: string[] = ['cf', 'cg']): Promise<Table> {
    const table = ctx.instance.table(uniqueTableId('mut'));
    await table.create({ families });
    return table;
  }

  describe('SetCell', () => {
    it('writes cells with explicit timestamps; the same timestamp overwrites', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { q: at('one', 1) } } }]);
      await t.insert([{ key: 'r', data: { cf: { q: at('two', 2) } } }]);
      await t.insert([{ key: 'r', data: { cf: { q: at('ONE', 1) } } }]);
      expect(await readRendered(t)).toEqual(['r cf:q @2000 "two"', 'r cf:q @1000 "ONE"']);
    });

    it('stamps cells with client time by default and with server time for -1, at millisecond granularity', async () => {
      const t = await newTable();
      const before = Date.now() * 1000;
      await t.insert([{ key: 'client', data: { cf: { q: 'c' } } }]);
      await t.insert([{ key: 'server', data: { cf: { q: { value: 's', timestamp: -1 } } } }]);
      const after = Date.now() * 1000;
      const [rows] = await t.getRows();
      const stamps = rows.map((r) => Number((r.data as { cf: { q: { timestamp: string }[] } }).cf.q[0]?.timestamp));
      expect(stamps).toHaveLength(2);
      for (const ts of stamps) {
        expect(ts).toBeGreaterThanOrEqual(before);
        expect(ts).toBeLessThanOrEqual(after);
        expect(ts % 1000).toBe(0);
      }
    });

    it('applies the mutations of one entry in order', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { old: at('x', 1) } } }]);
      await t.mutate(
        [
          {
            rowKey: Buffer.from('r'),
            mutations: [
              { setCell: { familyName: 'cf', columnQualifier: Buffer.from('a'), timestampMicros: 5000, value: Buffer.from('first') } },
              { deleteFromRow: {} },
              { setCell: { familyName: 'cf', columnQualifier: Buffer.from('b'), timestampMicros: 5000, value: Buffer.from('second') } },
              { setCell: { familyName: 'cf', columnQualifier: Buffer.from('b'), timestampMicros: 5000, value: Buffer.from('third') } },
            ],
          },
        ],
        { rawMutation: true },
      );
      expect(await readRendered(t)).toEqual(['r cf:b @5000 "third"']);
    });

    it('accepts empty qualifiers and empty values', async () => {
      const t = await newTable();
      await t.mutate(
        [
          {
            rowKey: Buffer.from('r'),
            mutations: [{ setCell: { familyName: 'cf', columnQualifier: Buffer.alloc(0), timestampMicros: 1000, value: Buffer.alloc(0) } }],
          },
        ],
        { rawMutation: true },
      );
      expect(await readRendered(t)).toEqual(['r cf: @1000 ""']);
    });
  });

  describe('deletes', () => {
    async function seeded(): Promise<Table> {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { a: at('a1', 1), b: at('b1', 1) }, cg: { c: at('c1', 1) } } }]);
      for (const ms of [2, 3, 4]) await t.insert([{ key: 'r', data: { cf: { a: at(`a${ms}`, ms) } } }]);
      await t.insert([{ key: 'other', data: { cf: { a: at('keep', 1) } } }]);
      return t;
    }

    /**
     * Rendered cells of the seeded rows as the target may return them: in family creation
     * order (cf, then cg), or, on the emulator, which orders a CreateTable's families at
     * random, with row r's cg cells first too.
     */
    async function expectRows(t: Table, expected: string[], keys?: string[]): Promise<void> {
      const actual = await readRendered(t, keys === undefined ? {} : { keys });
      // Row "other" sorts before row "r" and has only cf cells.
      const cgFirst = [
        ...expected.filter((l) => !l.startsWith('r ')),
        ...expected.filter((l) => l.startsWith('r cg:')),
        ...expected.filter((l) => l.startsWith('r cf:')),
      ];
      expect(allowedOn(kind, expected, 'create-table-family-order', [expected, cgFirst])).toContainEqual(actual);
    }

    it('delete cells of a column in a timestamp range [start, end)', async () => {
      const t = await seeded();
      await t.row('r').deleteCells([columnInRange('cf:a', { start: new Date(2), end: new Date(4) })]);
      await expectRows(t, ['r cf:a @4000 "a4"', 'r cf:a @1000 "a1"', 'r cf:b @1000 "b1"', 'r cg:c @1000 "c1"'], ['r']);
      await t.row('r').deleteCells([columnInRange('cf:a', { start: new Date(4) })]);
      await expectRows(t, ['r cf:a @1000 "a1"', 'r cf:b @1000 "b1"', 'r cg:c @1000 "c1"'], ['r']);
    });

    it('delete a whole column', async () => {
      const t = await seeded();
      await t.row('r').deleteCells(['cf:a']);
      await expectRows(t, ['other cf:a @1000 "keep"', 'r cf:b @1000 "b1"', 'r cg:c @1000 "c1"']);
    });

    it('delete a family from a row', async () => {
      const t = await seeded();
      await t.row('r').deleteCells(['cf']);
      expect(await readRendered(t)).toEqual(['other cf:a @1000 "keep"', 'r cg:c @1000 "c1"']);
    });

    it('delete a row', async () => {
      const t = await seeded();
      await t.row('r').delete();
      expect(await readRendered(t)).toEqual(['other cf:a @1000 "keep"']);
      // Deleting a row that does not exist is not an error.
      await t.row('never').delete();
    });

    it('delete cells that do not exist: no error, nothing changes', async () => {
      const t = await seeded();
      await t.row('r').deleteCells(['cf:zzz', 'cg']);
      await t.row('r').deleteCells(['cg']);
      expect(await readRendered(t, { keys: ['r'] })).toEqual([
        'r cf:a @4000 "a4"',
        'r cf:a @3000 "a3"',
        'r cf:a @2000 "a2"',
        'r cf:a @1000 "a1"',
        'r cf:b @1000 "b1"',
      ]);
    });
  });

  describe('CheckAndMutateRow', () => {
    it('applies the true mutations when the predicate matches and the false ones when it does not', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { state: at('open', 1) } } }]);
      const onMatch = [{ method: 'insert', data: { cf: { result: at('matched', 2) } } }];
      const onNoMatch = [{ method: 'insert', data: { cf: { result: at('missed', 2) } } }];

      expect(await t.row('r').filter([{ column: 'state' }, { value: 'open' }], { onMatch, onNoMatch })).toEqual([
        true,
        { predicateMatched: true },
      ]);
      expect(await readRendered(t, { filter: [{ column: 'result' }] })).toEqual(['r cf:result @2000 "matched"']);

      expect(await t.row('r').filter([{ column: 'state' }, { value: 'closed' }], { onMatch, onNoMatch })).toEqual([
        false,
        { predicateMatched: false },
      ]);
      expect(await readRendered(t, { filter: [{ column: 'result' }] })).toEqual(['r cf:result @2000 "missed"']);

      // A row that does not exist matches nothing; the false branch creates it.
      expect(await t.row('new').filter([{ all: true }], { onMatch, onNoMatch })).toEqual([false, { predicateMatched: false }]);
      expect(await readRendered(t, { keys: ['new'] })).toEqual(['new cf:result @2000 "missed"']);
    });

    it('without a predicate, matches when the row has any cell', async () => {
      const t = await newTable();
      const request = (key: string) => ({
        tableName: t.name,
        rowKey: Buffer.from(key),
        trueMutations: [
          { setCell: { familyName: 'cf', columnQualifier: Buffer.from('t'), timestampMicros: 1000, value: Buffer.from('true') } },
        ],
        falseMutations: [
          { setCell: { familyName: 'cf', columnQualifier: Buffer.from('f'), timestampMicros: 1000, value: Buffer.from('false') } },
        ],
      });
      expect(await rawUnary(ctx.client, 'BigtableClient', 'checkAndMutateRow', request('r'))).toMatchObject({ predicateMatched: false });
      expect(await rawUnary(ctx.client, 'BigtableClient', 'checkAndMutateRow', request('r'))).toMatchObject({ predicateMatched: true });
      expect(await readRendered(t)).toEqual(['r cf:f @1000 "false"', 'r cf:t @1000 "true"']);
    });

    it('a predicate that filters everything out counts as no match; no mutations for a branch is fine', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { q: at('v', 1) } } }]);
      expect(await t.row('r').filter([{ all: false }], { onMatch: [{ method: 'delete' }] })).toEqual([false, { predicateMatched: false }]);
      expect(await t.row('r').filter([{ column: 'q' }], { onNoMatch: [{ method: 'delete' }] })).toEqual([true, { predicateMatched: true }]);
      expect(await readRendered(t)).toEqual(['r cf:q @1000 "v"']);
      expect(await t.row('r').filter([{ column: 'q' }], { onMatch: [{ method: 'delete' }] })).toEqual([true, { predicateMatched: true }]);
      expect(await readRendered(t)).toEqual([]);
    });
  });

  describe('ReadModifyWriteRow', () => {
    it('increments from an absent cell (as 0) and accumulates, negative deltas included', async () => {
      const t = await newTable();
      expect((await t.row('ctr').increment('cf:n', 5))[0]).toBe(5);
      expect((await t.row('ctr').increment('cf:n', -7))[0]).toBe(-2);
      expect((await t.row('ctr').increment('cf:n'))[0]).toBe(-1);
      const [rows] = await t.getRows({ decode: false, filter: [{ column: { cellLimit: 1 } }] });
      expect((rows[0]?.data as { cf: { n: { value: unknown }[] } }).cf.n[0]?.value).toBe(-1);
    });

    it('appends to absent and existing values', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { s: at('abc', 1) } } }]);
      await t.row('r').createRules([{ column: 'cf:s', append: 'def' }]);
      await t.row('r').createRules([{ column: 'cf:new', append: 'x' }]);
      expect(await readRendered(t, { filter: [{ column: { cellLimit: 1 } }, { value: { strip: false } }] })).toEqual([
        expect.stringMatching(/^r cf:new @\d+ "x"$/),
        expect.stringMatching(/^r cf:s @\d+ "abcdef"$/),
      ]);
    });

    it('applies several rules in one call and returns exactly the modified cells', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { untouched: at('u', 1) } } }]);
      const [response] = (await rawUnary(ctx.client, 'BigtableClient', 'readModifyWriteRow', {
        tableName: t.name,
        rowKey: Buffer.from('r'),
        rules: [
          { familyName: 'cf', columnQualifier: Buffer.from('n'), incrementAmount: 2 },
          { familyName: 'cg', columnQualifier: Buffer.from('s'), appendValue: Buffer.from('x') },
          { familyName: 'cf', columnQualifier: Buffer.from('n'), incrementAmount: 40 },
          { familyName: 'cg', columnQualifier: Buffer.from('s'), appendValue: Buffer.from('y') },
        ],
      }).then((r) => [r])) as [
        { row: { key: Buffer; families: { name: string; columns: { qualifier: Buffer; cells: { value: Buffer }[] }[] }[] } },
      ];
      const summary = response.row.families
        .map((f) =>
          f.columns.map(
            (c) => `${f.name}:${c.qualifier.toString()}=${c.cells.map((cell) => Buffer.from(cell.value).toString('hex')).join('|')}`,
          ),
        )
        .flat()
        .sort();
      expect(summary).toEqual([`cf:n=${int64(42).toString('hex')}`, `cg:s=${Buffer.from('xy').toString('hex')}`]);
    });

    it('writes the new cell at max(now, latest timestamp) so it becomes the latest version', async () => {
      const t = await newTable();
      const future = Date.now() + 3_600_000; // one hour ahead, in ms
      await t.insert([{ key: 'r', data: { cf: { n: { value: int64(10), timestamp: new Date(future) } } } }]);
      const before = Date.now() * 1000;
      await t.row('r').increment('cf:n', 1);
      await t.row('r').increment('cf:m', 1);
      const after = Date.now() * 1000;
      const [rows] = await t.getRows();
      const data = rows[0]?.data as { cf: { n: { value: unknown; timestamp: string }[]; m: { timestamp: string }[] } };
      expect(data.cf.n[0]).toMatchObject({ value: 11, timestamp: String(future * 1000) });
      const m = Number(data.cf.m[0]?.timestamp);
      expect(m).toBeGreaterThanOrEqual(before);
      expect(m).toBeLessThanOrEqual(after);
    });

    it('refuses to increment a value that is not 8 bytes', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { s: at('not a number', 1) } } }]);
      await expectCode(
        t.row('r').increment('cf:s', 1),
        expectedOn(kind, status.FAILED_PRECONDITION, 'increment-non-int64-code', status.UNKNOWN),
      );
      expect(await readRendered(t)).toEqual(['r cf:s @1000 "not a number"']);
    });
  });

  describe('atomicity under concurrency', () => {
    it('concurrent increments of one cell lose no update', async () => {
      const t = await newTable();
      const n = 100;
      const results = await Promise.all(
        Array.from({ length: n }, () =>
          t
            .row('ctr')
            .increment('cf:n', 1)
            .then(([v]) => Number(v)),
        ),
      );
      // Each call saw a distinct intermediate value, and the last one is n.
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      const [rows] = await t.getRows({ filter: [{ column: { cellLimit: 1 } }] });
      expect((rows[0]?.data as { cf: { n: { value: unknown }[] } }).cf.n[0]?.value).toBe(n);
    });

    it('of many concurrent check-and-mutate claims on an empty row, exactly one wins', async () => {
      const t = await newTable();
      const n = 30;
      const claims = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          t
            .row('lock')
            .filter([{ column: 'owner' }], {
              onNoMatch: [{ method: 'insert', data: { cf: { owner: { value: `client-${i}`, timestamp: new Date(1) } } } }],
            })
            .then(([matched]) => matched),
        ),
      );
      expect(claims.filter((matched) => !matched)).toHaveLength(1);
      const [rows] = await t.getRows();
      expect(Object.keys((rows[0]?.data as { cf: object }).cf)).toEqual(['owner']);
    });
  });

  describe('errors', () => {
    it('NOT_FOUND for a mutation into a family the table does not have', async () => {
      const t = await newTable();
      expect(await entryFailures(t.insert([{ key: 'r', data: { nope: { q: at('v', 1) } } }]))).toEqual({
        r: expectedOn(kind, status.NOT_FOUND, 'unknown-family-code', status.INTERNAL),
      });
      await expectCode(
        t.row('r').filter([{ all: true }], { onNoMatch: [{ method: 'insert', data: { nope: { q: at('v', 1) } } }] }),
        expectedOn(kind, status.NOT_FOUND, 'unknown-family-code', status.UNKNOWN),
      );
      expect(await readRendered(t)).toEqual([]);
    });

    it('reports each failed MutateRows entry and applies the others', async () => {
      const t = await newTable();
      const failures = await entryFailures(
        t.insert([
          { key: 'good1', data: { cf: { q: at('1', 1) } } },
          { key: 'bad', data: { nope: { q: at('2', 1) } } },
          { key: 'good2', data: { cf: { q: at('3', 1) } } },
        ]),
      );
      expect(failures).toEqual({ bad: expectedOn(kind, status.NOT_FOUND, 'unknown-family-code', status.INTERNAL) });
      expect(await readRendered(t)).toEqual(['good1 cf:q @1000 "1"', 'good2 cf:q @1000 "3"']);
    });

    it('INVALID_ARGUMENT for a timestamp that is not a whole millisecond', async () => {
      const t = await newTable();
      expect(await entryFailures(t.insert([{ key: 'r', data: { cf: { q: { value: 'v', timestamp: 1234 } } } }]))).toEqual({
        r: expectedOn(kind, status.INVALID_ARGUMENT, 'bad-timestamp-code', status.INTERNAL),
      });
    });

    it('INVALID_ARGUMENT for an empty row key', async () => {
      const t = await newTable();
      expect(await entryFailures(t.insert([{ key: '', data: { cf: { q: at('v', 1) } } }]))).toEqual({
        '': expectedOn(kind, status.INVALID_ARGUMENT, 'mutate-rows-entry-code', status.INTERNAL),
      });
    });

    it('INVALID_ARGUMENT for a row key over 4 KiB; 4 KiB is fine', async () => {
      const t = await newTable();
      await t.insert([{ key: 'k'.repeat(4096), data: { cf: { q: at('v', 1) } } }]);
      const result = await singleMutationOutcome(t.insert([{ key: 'k'.repeat(4097), data: { cf: { q: at('v', 1) } } }]));
      expect(result).toBe(expectedOn(kind, status.INVALID_ARGUMENT, 'row-key-limit', 'ok'));
      expect(await singleMutationOutcome(t.row('k'.repeat(4097)).increment('cf:n', 1))).toBe(
        expectedOn(kind, status.INVALID_ARGUMENT, 'row-key-limit', 'ok'),
      );
    });

    it('INVALID_ARGUMENT for a qualifier over 16 KiB; 16 KiB is fine', async () => {
      const t = await newTable();
      await t.insert([{ key: 'r', data: { cf: { ['q'.repeat(16 * 1024)]: at('v', 1) } } }]);
      const result = await singleMutationOutcome(t.insert([{ key: 'r2', data: { cf: { ['q'.repeat(16 * 1024 + 1)]: at('v', 1) } } }]));
      expect(result).toBe(expectedOn(kind, status.INVALID_ARGUMENT, 'qualifier-limit', 'ok'));
    });

    it('INVALID_ARGUMENT for more than 100,000 mutations in one request', async () => {
      const t = await newTable();
      const deletes = (n: number) => Array.from({ length: n }, () => ({ deleteFromFamily: { familyName: 'cf' } }));
      await t.mutate([{ rowKey: Buffer.from('r'), mutations: deletes(100_000) }], { rawMutation: true });
      const result = await outcome(t.mutate([{ rowKey: Buffer.from('r'), mutations: deletes(100_001) }], { rawMutation: true }));
      expect(result).toEqual(expectedOn(kind, status.INVALID_ARGUMENT, 'mutation-count-limit', 'ok'));
    });

    it('NOT_FOUND for writes to a table that does not exist', async () => {
      const t = ctx.instance.table(uniqueTableId('absent'));
      await expectCode(t.insert([{ key: 'r', data: { cf: { q: 'v' } } }]), status.NOT_FOUND);
      await expectCode(t.row('r').increment('cf:n', 1), status.NOT_FOUND);
      await expectCode(t.row('r').filter([{ all: true }], { onMatch: [{ method: 'delete' }] }), status.NOT_FOUND);
    });
  });
});
