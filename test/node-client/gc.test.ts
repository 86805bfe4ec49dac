import { describe, expect, it } from 'vitest';
import type { Table } from '@google-cloud/bigtable';
import { expectedOn } from '../harness/divergences.js';
import { uniqueTableId } from '../harness/names.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

const HOUR = 3600;

describe.each(selectedTargets())('garbage collection policies seen through reads (%s)', (kind) => {
  const ctx = useTarget(kind);

  /** Versions per family of row r (each family has one column, q). */
  async function versions(table: Table): Promise<Record<string, number>> {
    const [rows] = await table.getRows();
    const data = (rows[0]?.data ?? {}) as Record<string, { q: unknown[] }>;
    return Object.fromEntries(Object.entries(data).map(([family, columns]) => [family, columns.q.length]));
  }

  async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('hides cells outside max-versions, max-age, union and intersection rules', async () => {
    const table = ctx.instance.table(uniqueTableId('gc'));
    await table.create();
    // Families one by one, so that the emulator's background GC loop runs (it starts on ModifyColumnFamilies).
    await table.createFamily('versions', { rule: { versions: 1 } });
    await table.createFamily('age', { rule: { age: { seconds: HOUR } } });
    await table.createFamily('union', { rule: { versions: 1, age: { seconds: HOUR }, union: true } });
    await table.createFamily('intersection', { rule: { versions: 1, age: { seconds: HOUR } } });
    await table.createFamily('none');
    const now = Date.now();
    // Three versions everywhere: now, a minute ago, two hours ago.
    for (const family of ['versions', 'age', 'union', 'intersection', 'none']) {
      for (const ms of [now - 2 * HOUR * 1000, now - 60_000, now]) {
        await table.insert([{ key: 'r', data: { [family]: { q: { value: String(ms), timestamp: new Date(ms) } } } }]);
      }
    }
    const correct = { versions: 1, age: 2, union: 1, intersection: 2, none: 3 };
    const all = { versions: 3, age: 3, union: 3, intersection: 3, none: 3 };
    expect(await versions(table)).toEqual(expectedOn(kind, correct, 'gc-at-read-time', all));

    if (kind === 'emulator') {
      // Its background GC (every 0.5-1.5 s) collects everything except under intersection rules.
      await until(async () => (await versions(table))['versions'] === 1, 10_000);
      expect(await versions(table)).toEqual(expectedOn(kind, correct, 'intersection-gc', { ...correct, intersection: 3 }));
    }
  });

  it('applies a changed GC rule to existing cells', async () => {
    const table = ctx.instance.table(uniqueTableId('gc-update'));
    await table.create({ families: [{ name: 'cf', rule: { versions: 5 } }] });
    for (const ms of [1, 2, 3]) await table.insert([{ key: 'r', data: { cf: { q: { value: `v${ms}`, timestamp: new Date(ms) } } } }]);
    expect(await versions(table)).toEqual({ cf: 3 });
    await table.family('cf').setMetadata({ rule: { versions: 2 } });
    expect(await versions(table)).toEqual(expectedOn(kind, { cf: 2 }, 'gc-at-read-time', { cf: 3 }));
    const [rows] = await table.getRows();
    const stamps = ((rows[0]?.data ?? {}) as { cf: { q: { timestamp: string }[] } }).cf.q.map((c) => c.timestamp);
    expect(stamps).toEqual(expectedOn(kind, ['3000', '2000'], 'gc-at-read-time', ['3000', '2000', '1000']));
  });
});
