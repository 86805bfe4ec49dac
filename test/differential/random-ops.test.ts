import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useTarget } from '../harness/suite.js';
import { applyOp, snapshot } from './apply.js';
import { opArb } from './ops.js';
import { differentialPair, differentialTable, fcParams, SKIP_REASON } from './pair.js';

const pair = differentialPair();

/**
 * Seeded random operation sequences, applied step by step to both targets
 * through the Node client: every step's outcome and the final table must be
 * the same. On a difference fast-check shrinks the sequence and prints the
 * seed and path to replay it (DIFF_SEED=... and fc's `path`).
 */
describe.skipIf(pair === undefined)(`random operation sequences, ${pair?.join(' vs ') ?? SKIP_REASON}`, () => {
  const [kindA, kindB] = pair ?? ['tabletop', 'emulator'];
  const a = useTarget(kindA);
  const b = useTarget(kindB);

  it('give the same result at every step', async () => {
    // Every generated operation is valid, so none may fail; and the suite is
    // only worth something if reads see data: count both.
    const stats = { steps: 0, errors: [] as string[], readsWithRows: 0, reads: 0, matched: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 50, size: 'max' }), async (ops) => {
        const [ta, tb] = await Promise.all([differentialTable(a), differentialTable(b)]);
        const log: string[] = [];
        for (const [i, op] of ops.entries()) {
          const [ra, rb] = await Promise.all([applyOp(a.client, ta, op), applyOp(b.client, tb, op)]);
          log.push(`#${i} ${JSON.stringify(op)}\n  ${kindA}: ${ra.replaceAll('\n', '\n    ')}`);
          stats.steps++;
          if (ra.startsWith('error') || rb.startsWith('error'))
            stats.errors.push(`${JSON.stringify(op)} -> ${kindA}: ${ra}; ${kindB}: ${rb}`);
          if (op.op === 'read') {
            stats.reads++;
            if (ra !== '') stats.readsWithRows++;
          }
          if (ra === 'matched true') stats.matched++;
          if (ra !== rb) {
            throw new Error(
              `step ${i} differs: ${JSON.stringify(op)}\n--- ${kindA}\n${ra}\n--- ${kindB}\n${rb}\n--- steps so far\n${log.join('\n')}`,
            );
          }
        }
        const [sa, sb] = await Promise.all([snapshot(ta), snapshot(tb)]);
        expect(sa).toBe(sb);
        await Promise.all([ta.delete(), tb.delete()]);
      }),
      fcParams(),
    );
    if (process.env['DIFF_VERBOSE']) console.log(JSON.stringify({ ...stats, errors: stats.errors.length }));
    expect(stats.errors).toEqual([]);
    expect(stats.readsWithRows).toBeGreaterThan(stats.reads / 3);
    expect(stats.matched).toBeGreaterThan(0);
  }, 300_000);
});
