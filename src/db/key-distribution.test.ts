import { describe, expect, it } from 'vitest';
import { createAsyncEngine } from './testing/async-engine.js';
import { createTable, family, openDb, set } from './testing/db-fixture.js';

const KEYS = Array.from({ length: 300 }, (_, i) => `row#${String(i).padStart(4, '0')}`);
/** Row i holds a value of 10 + (i % 7) * 30 bytes; row 299 a big one. */
const valueOf = (i: number): string => (i === 299 ? 'B'.repeat(5000) : 'v'.repeat(10 + (i % 7) * 30));

for (const engine of ['memory', 'async'] as const) {
  describe(`key distribution (${engine} engine)`, () => {
    async function setUp() {
      const f = await openDb(engine === 'async' ? { engine: createAsyncEngine() } : {});
      const name = await createTable(f, [family('cf')], { splits: ['row#0100', 'row#0200'] });
      await f.db.mutateRows(
        name,
        KEYS.map((key, i) => ({ key, mutations: [set('cf', 'q', 1000, valueOf(i))] })),
      );
      return { f, name };
    }

    it('lists every row of a small table, with rows and bytes before it and the largest rows', async () => {
      const { f, name } = await setUp();
      const d = await f.db.keyDistribution(name, { exactUpToRows: 1000, bytesPerPiece: 1000 });
      expect(d.exact).toBe(true);
      expect(d.rows).toBe(300);
      expect(d.points.map((p) => p.key)).toEqual(KEYS);
      expect(d.points.map((p) => p.rowsBefore)).toEqual(KEYS.map((_, i) => i));
      // Bytes as reads count them: key + qualifier + value.
      const sizes = KEYS.map((k, i) => k.length + 1 + valueOf(i).length);
      expect(d.bytes).toBe(sizes.reduce((a, b) => a + b, 0));
      expect(d.points[150]!.bytesBefore).toBe(sizes.slice(0, 150).reduce((a, b) => a + b, 0));
      expect(d.largestRows).toHaveLength(10);
      expect(d.largestRows[0]).toEqual({ key: 'row#0299', bytes: sizes[299] });
      for (let i = 1; i < 10; i++) expect(d.largestRows[i]!.bytes).toBeLessThanOrEqual(d.largestRows[i - 1]!.bytes);
    });

    it('samples a big table: tablet starts and byte-offset samples, ascending, with estimated rows before', async () => {
      const { f, name } = await setUp();
      const d = await f.db.keyDistribution(name, { exactUpToRows: 10, bytesPerPiece: 2000 });
      expect(d.exact).toBe(false);
      expect(d.rows).toBe(300);
      const keys = d.points.map((p) => p.key);
      expect(keys).toEqual([...keys].sort());
      expect(new Set(keys).size).toBe(keys.length);
      for (const start of ['', 'row#0100', 'row#0200']) expect(keys).toContain(start);
      expect(keys.length).toBeGreaterThan(6);
      // Estimated rows before a sample: within a tablet's rows of the true position.
      for (const p of d.points) {
        const actual = KEYS.filter((k) => k < p.key).length;
        expect(Math.abs(p.rowsBefore - actual), p.key).toBeLessThanOrEqual(40);
      }
      expect(d.points.find((p) => p.key === 'row#0200')!.rowsBefore).toBe(200);
    });
  });
}
