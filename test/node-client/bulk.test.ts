import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { uniqueTableId } from '../harness/names.js';
import { keysOf, readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

describe.each(selectedTargets())('bulk operations through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);

  it('drops row ranges by prefix, then everything', async () => {
    const table = ctx.instance.table(uniqueTableId('drop'));
    await table.create({ families: ['cf'] });
    const keys = ['a', 'ab', 'ab1', 'abc', 'ab\xff', 'ac', 'b'];
    await table.insert(keys.map((key) => ({ key, data: { cf: { q: { value: 'v', timestamp: new Date(1) } } } })));
    await table.deleteRows('ab');
    expect(keysOf((await table.getRows())[0])).toEqual(['a', 'ac', 'b']);
    await table.deleteRows('zzz'); // nothing there: fine
    expect(keysOf((await table.getRows())[0])).toEqual(['a', 'ac', 'b']);
    await table.truncate();
    expect(keysOf((await table.getRows())[0])).toEqual([]);
    // The table and its families survive.
    await table.insert([{ key: 'again', data: { cf: { q: { value: 'v', timestamp: new Date(1) } } } }]);
    expect(await readRendered(table)).toEqual(['again cf:q @1000 "v"']);
  });

  it('writes 20,000 rows in one MutateRows call and scans them all back in order', async () => {
    const table = ctx.instance.table(uniqueTableId('many'));
    await table.create({ families: ['cf'] });
    const n = 20_000;
    const key = (i: number) => `row#${String(i).padStart(6, '0')}`;
    // Insert in a shuffled order; the scan must come back sorted.
    const order = Array.from({ length: n }, (_, i) => (i * 7919) % n);
    await table.insert(order.map((i) => ({ key: key(i), data: { cf: { v: { value: `value-${i}`, timestamp: new Date(1) } } } })));
    const seen: string[] = [];
    let badValues = 0;
    await new Promise<void>((resolve, reject) => {
      table
        .createReadStream()
        .on('data', (row: { id: string; data: { cf: { v: { value: string }[] } } }) => {
          seen.push(row.id);
          if (row.data.cf.v[0]?.value !== `value-${Number(row.id.slice(4))}`) badValues++;
        })
        .on('error', reject)
        .on('end', () => resolve());
    });
    expect(seen.length).toBe(n);
    expect(seen[0]).toBe(key(0));
    expect(seen[n - 1]).toBe(key(n - 1));
    expect(seen.every((k, i) => k === key(i))).toBe(true);
    expect(badValues).toBe(0);

    // SampleRowKeys: ascending keys ending with the empty key, offsets not decreasing.
    const [samples] = await table.sampleRowKeys();
    expect(samples.length).toBeGreaterThanOrEqual(1);
    const sampleKeys = samples.map((s) => Buffer.from(s.key as Buffer));
    const offsets = samples.map((s) => Number(s.offset));
    expect(sampleKeys[sampleKeys.length - 1]?.length).toBe(0);
    for (let i = 1; i < sampleKeys.length - 1; i++)
      expect(Buffer.compare(sampleKeys[i - 1] ?? Buffer.alloc(0), sampleKeys[i] ?? Buffer.alloc(0))).toBe(-1);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThanOrEqual(offsets[i - 1] ?? 0);
    expect(offsets[offsets.length - 1]).toBeGreaterThan(0);
  });

  it('stores and returns a 20 MiB value intact', async () => {
    const table = ctx.instance.table(uniqueTableId('large'));
    await table.create({ families: ['cf'] });
    const size = 20 * 1024 * 1024;
    const value = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) value.writeUInt32BE((i * 2654435761) >>> 0, i);
    const digest = createHash('sha256').update(value).digest('hex');
    await table.insert([
      { key: 'big', data: { cf: { v: { value, timestamp: new Date(1) } } } },
      { key: 'small', data: { cf: { v: { value: 'x', timestamp: new Date(1) } } } },
    ]);
    const [rows] = await table.getRows({ decode: false });
    expect(rows.map((r) => String(r.id))).toEqual(['big', 'small']);
    const got = (rows[0]?.data as { cf: { v: { value: Buffer }[] } }).cf.v[0]?.value;
    expect(got?.length).toBe(size);
    expect(
      createHash('sha256')
        .update(got ?? Buffer.alloc(0))
        .digest('hex'),
    ).toBe(digest);
  }, 60_000);
});
