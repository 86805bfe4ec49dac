import { describe, expect, it } from 'vitest';
import { expectedOn } from '../harness/divergences.js';
import { expectCode, outcome, status } from '../harness/grpc-errors.js';
import { uniqueTableId } from '../harness/names.js';
import { readRendered } from '../harness/rows.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';
import { gcRuleText } from './gc-rule-text.js';

describe.each(selectedTargets())('table admin through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);

  async function familyRules(tableId: string): Promise<Record<string, string>> {
    const [families] = await ctx.instance.table(tableId).getFamilies();
    // Families travel as a protobuf map, whose order is not defined: sort.
    const out: Record<string, string> = {};
    for (const f of [...families].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      out[f.id] = gcRuleText((f.metadata as { gcRule?: unknown }).gcRule);
    }
    return out;
  }

  it('creates a table with families and every kind of GC rule, and reads the rules back', async () => {
    const id = uniqueTableId('gc-rules');
    await ctx.instance.table(id).create({
      families: [
        'plain',
        { name: 'versions', rule: { versions: 2 } },
        { name: 'age', rule: { age: { seconds: 3600 } } },
        { name: 'union', rule: { versions: 1, age: { seconds: 60 }, union: true } },
        { name: 'intersection', rule: { versions: 1, age: { seconds: 60 } } },
        { name: 'nested', rule: { versions: 3, rule: { age: { seconds: 5 }, versions: 1, union: true } } },
      ],
    });
    expect(await familyRules(id)).toEqual({
      age: 'age(3600s)',
      intersection: 'intersection(age(60s),versions(1))',
      nested: 'intersection(versions(3),union(age(5s),versions(1)))',
      plain: 'none',
      union: 'union(age(60s),versions(1))',
      versions: 'versions(2)',
    });
  });

  it('lists, checks and deletes tables', async () => {
    const a = uniqueTableId('list-a');
    const b = uniqueTableId('list-b');
    await ctx.instance.table(a).create();
    await ctx.instance.table(b).create({ families: ['cf'] });
    const [tables] = await ctx.instance.getTables();
    const ids = tables.map((t) => t.id);
    expect(ids).toContain(a);
    expect(ids).toContain(b);
    expect(await ctx.instance.table(a).exists()).toEqual([true]);

    await ctx.instance.table(a).delete();
    expect(await ctx.instance.table(a).exists()).toEqual([false]);
    const [after] = await ctx.instance.getTables();
    expect(after.map((t) => t.id)).not.toContain(a);
    expect(after.map((t) => t.id)).toContain(b);
    expect(await ctx.instance.table(uniqueTableId('never-created')).exists()).toEqual([false]);
  });

  it('creates, updates and drops families; dropping a family drops its data', async () => {
    const id = uniqueTableId('families');
    const table = ctx.instance.table(id);
    await table.create({ families: ['keep'] });
    await table.createFamily('extra', { rule: { versions: 5 } });
    expect(await familyRules(id)).toEqual({ extra: 'versions(5)', keep: 'none' });

    await table.family('extra').setMetadata({ rule: { age: { seconds: 10 } } });
    expect(await familyRules(id)).toEqual({ extra: 'age(10s)', keep: 'none' });
    const [meta] = await table.family('extra').getMetadata();
    expect(gcRuleText((meta as { gcRule?: unknown }).gcRule)).toBe('age(10s)');

    const ts = new Date(1_000);
    await table.insert([
      { key: 'both', data: { keep: { q: { value: 'k', timestamp: ts } }, extra: { q: { value: 'e', timestamp: ts } } } },
      { key: 'only-extra', data: { extra: { q: { value: 'e', timestamp: ts } } } },
    ]);
    await table.family('extra').delete();
    expect(await familyRules(id)).toEqual({ keep: 'none' });
    expect(await readRendered(table)).toEqual(['both keep:q @1000000 "k"']);

    // A family created again under the same name starts empty.
    await table.createFamily('extra');
    expect(await readRendered(table)).toEqual(['both keep:q @1000000 "k"']);
  });

  it('waits for replication (consistency token) on a single-cluster instance', async () => {
    const table = ctx.instance.table(uniqueTableId('consistency'));
    await table.create({ families: ['cf'] });
    await table.insert([{ key: 'r', data: { cf: { q: 'v' } } }]);
    expect(await table.waitForReplication()).toEqual([true]);
  });

  describe('errors', () => {
    it('ALREADY_EXISTS for a duplicate table or family', async () => {
      const table = ctx.instance.table(uniqueTableId('dup'));
      await table.create({ families: ['cf'] });
      await expectCode(table.create(), status.ALREADY_EXISTS);
      await expectCode(table.createFamily('cf'), status.ALREADY_EXISTS);
    });

    it('NOT_FOUND for every operation on a missing table', async () => {
      const table = ctx.instance.table(uniqueTableId('missing'));
      await expectCode(table.getFamilies(), status.NOT_FOUND);
      await expectCode(table.getMetadata(), status.NOT_FOUND);
      await expectCode(table.delete(), status.NOT_FOUND);
      await expectCode(table.createFamily('cf'), status.NOT_FOUND);
      await expectCode(table.deleteRows('a'), status.NOT_FOUND);
      await expectCode(table.truncate(), status.NOT_FOUND);
    });

    it('NOT_FOUND for updating or dropping a missing family', async () => {
      const table = ctx.instance.table(uniqueTableId('missing-family'));
      await table.create({ families: ['cf'] });
      const expected = expectedOn(kind, status.NOT_FOUND, 'unknown-family-admin-code', status.UNKNOWN);
      await expectCode(table.family('nope').delete(), expected);
      await expectCode(table.family('nope').setMetadata({ rule: { versions: 1 } }), expected);
    });

    it('INVALID_ARGUMENT for bad table ids', async () => {
      for (const bad of ['bad id', '-starts-with-dash', 'x'.repeat(51), 'sl/ash']) {
        if (bad.includes('/')) {
          // The client refuses ids with a slash itself.
          expect(() => ctx.instance.table(bad)).toThrow(/not formatted correctly/);
          continue;
        }
        const result = await outcome(ctx.instance.table(bad).create());
        expect({ bad, result }).toEqual({ bad, result: expectedOn(kind, status.INVALID_ARGUMENT, 'table-id-validation', 'ok') });
      }
      // 50 characters is fine.
      const longest = uniqueTableId('x').padEnd(50, 'y');
      await ctx.instance.table(longest).create();
      expect(await ctx.instance.table(longest).exists()).toEqual([true]);
    });

    it('INVALID_ARGUMENT for bad family names', async () => {
      const table = ctx.instance.table(uniqueTableId('bad-family'));
      await table.create({ families: ['cf'] });
      for (const bad of ['has space', 'colon:name', 'f'.repeat(65)]) {
        const result = await outcome(table.createFamily(bad));
        expect({ bad, result }).toEqual({ bad, result: expectedOn(kind, status.INVALID_ARGUMENT, 'family-name-validation', 'ok') });
      }
      await table.createFamily('ok-name_1.2');
      await table.createFamily('f'.repeat(64));
    });

    it('INVALID_ARGUMENT for a max-age GC rule under one millisecond', async () => {
      const table = ctx.instance.table(uniqueTableId('tiny-age'));
      await table.create({ families: ['cf'] });
      const result = await outcome(table.createFamily('tiny', { rule: { age: { seconds: 0, nanos: 1000 } } }));
      expect(result).toEqual(expectedOn(kind, status.INVALID_ARGUMENT, 'min-max-age', 'ok'));
      await table.createFamily('one-ms', { rule: { age: { seconds: 0, nanos: 1_000_000 } } });
    });
  });
});
