import { describe, expect, it } from 'vitest';
import type { AccessRecorder, RowBatch, TableAccess } from './access.js';
import { createAsyncEngine } from './testing/async-engine.js';
import { createTable, family, openDb, set } from './testing/db-fixture.js';

/** Counts every row batch and request the database reports. */
function countingRecorder(): { recorder: AccessRecorder; seen: () => number } {
  let seen = 0;
  const access: TableAccess = {
    rowsWritten: (b: RowBatch) => void (seen += b.count),
    rowsRead: (b: RowBatch) => void (seen += b.count),
    requestEnded: () => void seen++,
  };
  return { recorder: { openTable: () => access, dropTable: () => undefined }, seen: () => seen };
}

const counter = (n: number): string => Buffer.from(new BigInt64Array([BigInt(n)]).buffer).toString('latin1');

for (const engine of ['memory', 'async'] as const) {
  describe(`profileRows (${engine} engine)`, () => {
    it('gives each row its bytes and, per family, cells, columns, versions, the largest cell, qualifiers, counters', async () => {
      const { recorder, seen } = countingRecorder();
      const f = await openDb({ access: recorder, ...(engine === 'async' ? { engine: createAsyncEngine() } : {}) });
      const name = await createTable(f, [family('cf'), family('n')], { splits: ['m'] });
      await f.db.mutateRow(name, 'a#1', [
        set('cf', 'q1', 3000, 'x'.repeat(100)),
        set('cf', 'q1', 2000, 'y'),
        set('cf', 'q1', 1000, 'z'),
        set('cf', 'q2', 1000, 'w'.repeat(10)),
        set('n', 'hits', 1000, counter(7)),
      ]);
      await f.db.mutateRow(
        name,
        'z#2',
        Array.from({ length: 12 }, (_, i) => set('n', `c${String(i).padStart(2, '0')}`, 1000, counter(i))),
      );
      const before = seen();
      expect(before).toBeGreaterThan(0);
      const profiles = await f.db.profileRows(name, ['a#1', 'missing', 'z#2']);
      expect(seen()).toBe(before);
      expect(profiles.map((p) => p.key)).toEqual(['a#1', 'z#2']);
      const [a, z] = profiles;
      // Key + qualifiers + values of every version, as reads count them.
      expect(a!.bytes).toBe(3 + (2 + 100) + (2 + 1) + (2 + 1) + (2 + 10) + (4 + 8));
      expect(a!.families).toEqual([
        { family: 'cf', cells: 4, columns: 2, maxVersions: 3, maxCellBytes: 100, qualifiers: ['q1', 'q2'], counterLike: false },
        { family: 'n', cells: 1, columns: 1, maxVersions: 1, maxCellBytes: 8, qualifiers: ['hits'], counterLike: true },
      ]);
      expect(z!.families).toHaveLength(1);
      expect(z!.families[0]).toMatchObject({ family: 'n', cells: 12, columns: 12, maxVersions: 1, counterLike: true });
      // At most ten qualifiers named.
      expect(z!.families[0]!.qualifiers).toEqual(Array.from({ length: 10 }, (_, i) => `c${String(i).padStart(2, '0')}`));
      await f.db.close();
    });
  });
}
