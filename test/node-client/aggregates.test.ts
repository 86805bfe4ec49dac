import { describe, expect, it } from 'vitest';
import type { Table } from '@google-cloud/bigtable';
import { expectedOn } from '../harness/divergences.js';
import { singleMutationOutcome, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { int64 } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

type Aggregator = 'sum' | 'min' | 'max';

/** An Int64 aggregate value type (big-endian encoding), as the admin API takes it. */
function aggregate(kind: Aggregator): Record<string, unknown> {
  return { aggregateType: { inputType: { int64Type: { encoding: { bigEndianBytes: {} } } }, [kind]: {} } };
}

/**
 * Aggregate families. The Node client's handwritten surface cannot create
 * them or send AddToCell, so this goes through the admin GAPIC client it
 * exposes (`bigtable.admin.getTableAdminClient()`) and raw mutations
 * (`table.mutate(entries, { rawMutation: true })`).
 */
describe.each(selectedTargets())('aggregate families through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);

  async function newTable(): Promise<Table> {
    const admin = ctx.client.admin.getTableAdminClient();
    const id = uniqueTableId('agg');
    await admin.createTable({
      parent: `projects/${PROJECT}/instances/${INSTANCE}`,
      tableId: id,
      table: { columnFamilies: { plain: {}, sum: { valueType: aggregate('sum') } } },
    });
    await admin.modifyColumnFamilies({
      name: `projects/${PROJECT}/instances/${INSTANCE}/tables/${id}`,
      modifications: [
        { id: 'min', create: { valueType: aggregate('min') } },
        { id: 'max', create: { valueType: aggregate('max') } },
      ],
    });
    return ctx.instance.table(id);
  }

  function addToCell(
    table: Table,
    key: string,
    family: string,
    qualifier: string,
    value: number,
    timestampMicros: number,
  ): Promise<unknown> {
    return table.mutate(
      [
        {
          rowKey: Buffer.from(key),
          mutations: [
            {
              addToCell: {
                familyName: family,
                columnQualifier: { rawValue: Buffer.from(qualifier) },
                timestamp: { rawTimestampMicros: timestampMicros },
                input: { intValue: value },
              },
            },
          ],
        },
      ],
      { rawMutation: true },
    );
  }

  /** family:qualifier@ts=value for each cell of row `key`, values decoded as int64. */
  async function cells(table: Table, key: string): Promise<string[]> {
    const [rows] = await table.getRows({ keys: [key], decode: false });
    const data = (rows[0]?.data ?? {}) as Record<string, Record<string, { value: Buffer | number; timestamp: string }[]>>;
    return Object.entries(data).flatMap(([family, columns]) =>
      Object.entries(columns).flatMap(([qualifier, versions]) =>
        versions.map(
          (c) =>
            `${family}:${qualifier}@${c.timestamp}=${typeof c.value === 'number' ? c.value : Buffer.from(c.value).readBigInt64BE().toString()}`,
        ),
      ),
    );
  }

  it('reports the aggregate type of each family', async () => {
    const table = await newTable();
    const [families] = await table.getFamilies();
    const types = Object.fromEntries(
      families.map((f) => {
        const vt = (f.metadata as { valueType?: { aggregateType?: Record<string, unknown> } | null }).valueType;
        const agg = vt?.aggregateType;
        return [f.id, agg ? (['sum', 'min', 'max'].find((k) => agg[k] !== undefined && agg[k] !== null) ?? 'other') : 'none'];
      }),
    );
    expect(types).toEqual({ plain: 'none', sum: 'sum', min: 'min', max: 'max' });
  });

  it('sums AddToCell inputs per timestamp', async () => {
    const table = await newTable();
    await addToCell(table, 'r', 'sum', 'c', 5, 0);
    await addToCell(table, 'r', 'sum', 'c', 7, 0);
    await addToCell(table, 'r', 'sum', 'c', -20, 0);
    await addToCell(table, 'r', 'sum', 'c', 3, 1000);
    await addToCell(table, 'r', 'sum', 'd', 1, 0);
    expect(await cells(table, 'r')).toEqual(['sum:c@1000=3', 'sum:c@0=-8', 'sum:d@0=1']);
  });

  it('keeps the minimum and the maximum', async () => {
    const table = await newTable();
    for (const v of [5, -3, 9, 4]) {
      await addToCell(table, 'r', 'min', 'c', v, 0);
      await addToCell(table, 'r', 'max', 'c', v, 0);
    }
    expect(await cells(table, 'r')).toEqual(expectedOn(kind, ['min:c@0=-3', 'max:c@0=9'], 'aggregate-min-max', ['min:c@0=4', 'max:c@0=4']));
  });

  it('stores aggregates as 8-byte big-endian int64 values that filters and deletes treat like any cell', async () => {
    const table = await newTable();
    await addToCell(table, 'r', 'sum', 'c', 258, 0);
    const [rows] = await table.getRows({ filter: [{ family: 'sum' }, { value: { strip: true } }] });
    expect((rows[0]?.data as { sum: { c: { value: unknown }[] } }).sum.c[0]?.value).toBe('');
    const [raw] = await table.getRows({ decode: false });
    expect((raw[0]?.data as { sum: { c: { value: unknown }[] } }).sum.c[0]?.value).toBe(258); // the client decodes 8-byte values
    await table.row('r').deleteCells(['sum:c']);
    expect(await cells(table, 'r')).toEqual([]);
    await addToCell(table, 'r', 'sum', 'c', 1, 0);
    expect(await cells(table, 'r')).toEqual(['sum:c@0=1']);
    expect(int64(1).length).toBe(8);
  });

  it('rejects AddToCell into a family without an aggregate type', async () => {
    const table = await newTable();
    const result = await singleMutationOutcome(addToCell(table, 'r', 'plain', 'c', 1, 0));
    expect(result).toBe(expectedOn(kind, status.INVALID_ARGUMENT, 'mutate-rows-entry-code', status.INTERNAL));
    expect(await cells(table, 'r')).toEqual([]);
  });
});
