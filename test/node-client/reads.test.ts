import { beforeAll, describe, expect, it } from 'vitest';
import type { GetRowsOptions, Table } from '@google-cloud/bigtable';
import { allowedOn } from '../harness/divergences.js';
import { expectCode, failure, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { assembleCells, rawReadRows } from '../harness/raw.js';
import { bound, keysOf, readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

const KEYS = ['a', 'a1', 'a2', 'ab', 'b', 'b1', 'ba', 'c', 'd', 'd\x00', 'e'];
const TS = new Date(2_000);

describe.each(selectedTargets())('reads through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);
  let table: Table;

  beforeAll(async () => {
    table = ctx.instance.table(uniqueTableId('reads'));
    await table.create({ families: ['cf'] });
    await table.insert(KEYS.map((key) => ({ key, data: { cf: { q: { value: `v-${key}`, timestamp: TS } } } })));
  });

  const keys = async (options: GetRowsOptions): Promise<string[]> => keysOf((await table.getRows(options))[0]);

  it('scans the whole table in key order', async () => {
    expect(await keys({})).toEqual(KEYS);
    expect(await readRendered(table, { keys: ['b'] })).toEqual(['b cf:q @2000000 "v-b"']);
  });

  it('reads single rows and sets of keys, in key order, each once, skipping missing keys', async () => {
    expect(await keys({ keys: ['c'] })).toEqual(['c']);
    expect(await keys({ keys: ['e', 'a', 'nope', 'c', 'a'] })).toEqual(['a', 'c', 'e']);
    expect(await keys({ keys: ['missing'] })).toEqual([]);
    const [row] = await table.row('b1').get();
    expect(row.data).toEqual({ cf: { q: [{ value: 'v-b1', labels: [], timestamp: '2000000' }] } });
    // An empty read becomes the client's own "not found" (an HTTP-style 404, not a gRPC code).
    const missing = await failure(table.row('missing').get());
    expect({ code: missing.code, message: missing.message }).toEqual({ code: 404, message: 'Unknown row: missing.' });
  });

  it('reads by prefix and by several prefixes', async () => {
    expect(await keys({ prefix: 'a' })).toEqual(['a', 'a1', 'a2', 'ab']);
    expect(await keys({ prefix: 'b1' })).toEqual(['b1']);
    expect(await keys({ prefix: 'd' })).toEqual(['d', 'd\x00']);
    expect(await keys({ prefix: 'zz' })).toEqual([]);
    expect(await keys({ prefixes: ['ba', 'a1', 'e'] })).toEqual(['a1', 'ba', 'e']);
  });

  it('reads ranges with inclusive and exclusive bounds', async () => {
    // The Node client makes both bounds inclusive unless told otherwise.
    expect(await keys({ start: 'a2', end: 'b1' })).toEqual(['a2', 'ab', 'b', 'b1']);
    expect(await keys({ start: 'a2', end: bound('b1', false) })).toEqual(['a2', 'ab', 'b']);
    expect(await keys({ start: bound('a2', false), end: 'b' })).toEqual(['ab', 'b']);
    expect(await keys({ start: 'c' })).toEqual(['c', 'd', 'd\x00', 'e']);
    expect(await keys({ end: 'a1' })).toEqual(['a', 'a1']);
    expect(await keys({ start: 'd', end: bound('d\x00', false) })).toEqual(['d']);
    expect(await keys({ start: 'bb', end: 'bc' })).toEqual([]);
  });

  it('reads several ranges and keys together, merging overlaps', async () => {
    expect(
      await keys({
        ranges: [
          { start: 'd', end: 'e' },
          { start: 'a', end: bound('a2', false) },
          { start: 'a1', end: 'ab' },
        ],
      }),
    ).toEqual(['a', 'a1', 'a2', 'ab', 'd', 'd\x00', 'e']);
    expect(await keys({ keys: ['b', 'c'], ranges: [{ start: 'b', end: 'b1' }] })).toEqual(['b', 'b1', 'c']);
  });

  it('limits the number of rows', async () => {
    expect(await keys({ limit: 3 })).toEqual(['a', 'a1', 'a2']);
    expect(await keys({ prefix: 'b', limit: 2 })).toEqual(['b', 'b1']);
    expect(await keys({ limit: 100 })).toEqual(KEYS);
    expect(await keys({ keys: ['e', 'c', 'a'], limit: 2 })).toEqual(['a', 'c']);
  });

  it('reads in reverse when the client announces reverse scans (raw ReadRows)', async () => {
    const reversed = async (request: Record<string, unknown>): Promise<string[]> => {
      const cells = assembleCells(
        await rawReadRows(ctx.client, { tableName: table.name, reversed: true, ...request }, { reverseScans: true }),
      );
      return cells.map((c) => c.key.toString('latin1'));
    };
    expect(await reversed({})).toEqual([...KEYS].reverse());
    expect(await reversed({ rowsLimit: 3 })).toEqual(['e', 'd\x00', 'd']);
    expect(await reversed({ rows: { rowRanges: [{ startKeyClosed: Buffer.from('a1'), endKeyOpen: Buffer.from('b1') }] } })).toEqual([
      'b',
      'ab',
      'a2',
      'a1',
    ]);
    expect(
      await reversed({
        rows: {
          rowKeys: [Buffer.from('a'), Buffer.from('c')],
          rowRanges: [{ startKeyOpen: Buffer.from('d'), endKeyClosed: Buffer.from('e') }],
        },
      }),
    ).toEqual(['e', 'd\x00', 'c', 'a']);
  });

  it('stores and returns binary row keys byte for byte, in unsigned order', async () => {
    const t = ctx.instance.table(uniqueTableId('binary-keys'));
    await t.create({ families: ['cf'] });
    const binary = [
      Buffer.from([0xff, 0x00]),
      Buffer.from([0x00]),
      Buffer.from([0x7f, 0xff]),
      Buffer.from([0x80]),
      Buffer.from([0x00, 0x00, 0x01]),
    ];
    await t.mutate(
      binary.map((rowKey) => ({
        rowKey,
        mutations: [
          { setCell: { familyName: 'cf', columnQualifier: Buffer.from([0xc3, 0x28, 0x00]), timestampMicros: 1000, value: rowKey } },
        ],
      })),
      { rawMutation: true },
    );
    const cells = assembleCells(await rawReadRows(ctx.client, { tableName: t.name }));
    expect(cells.map((c) => c.key.toString('hex'))).toEqual(['00', '000001', '7fff', '80', 'ff00']);
    expect(cells.map((c) => c.value.toString('hex'))).toEqual(['00', '000001', '7fff', '80', 'ff00']);
    expect(cells.every((c) => c.qualifier.equals(Buffer.from([0xc3, 0x28, 0x00])))).toBe(true);
    const ranged = assembleCells(
      await rawReadRows(ctx.client, {
        tableName: t.name,
        rows: { rowRanges: [{ startKeyOpen: Buffer.from([0x00]), endKeyOpen: Buffer.from([0x80]) }] },
      }),
    );
    expect(ranged.map((c) => c.key.toString('hex'))).toEqual(['000001', '7fff']);
  });

  it('returns the families of a row in creation order: CreateTable order first, then later additions', async () => {
    const t = ctx.instance.table(uniqueTableId('family-order'));
    await t.create({ families: ['zeta', 'alpha', 'mid'] });
    await t.createFamily('beta');
    const cell = { q: { value: 'v', timestamp: new Date(1) } };
    await t.insert([{ key: 'r', data: { alpha: cell, beta: cell, mid: cell, zeta: cell } }]);
    const [rows] = await t.getRows();
    const order = Object.keys((rows[0]?.data ?? {}) as object);
    const permutations = (xs: string[]): string[][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    expect(
      allowedOn(
        kind,
        ['zeta', 'alpha', 'mid', 'beta'],
        'create-table-family-order',
        permutations(['zeta', 'alpha', 'mid']).map((p) => [...p, 'beta']),
      ),
    ).toContainEqual(order);
  });

  it('fails with NOT_FOUND when the table does not exist', async () => {
    await expectCode(ctx.instance.table(uniqueTableId('no-such-table')).getRows(), status.NOT_FOUND);
  });
});
