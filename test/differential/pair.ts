import fc from 'fast-check';
import type { Table } from '@google-cloud/bigtable';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import type { TargetContext } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';
import type { TargetKind } from '../harness/targets.js';
import { APPEND, COUNTER, FAMILIES, SUM } from './ops.js';

/**
 * The two targets a differential test compares: tabletop and Google's
 * emulator when TARGET is `both` (the default). DIFF_PAIR=emulator,emulator
 * (or any two kinds) overrides it, e.g. to check the suite itself while
 * tabletop is not built. Undefined when only one target is selected.
 */
export function differentialPair(): readonly [TargetKind, TargetKind] | undefined {
  const override = process.env['DIFF_PAIR'];
  if (override) {
    const [a, b] = override.split(',').map((s) => s.trim());
    const ok = (k: string | undefined): k is TargetKind => k === 'tabletop' || k === 'emulator';
    if (!ok(a) || !ok(b)) throw new Error(`DIFF_PAIR must be two of tabletop,emulator, not "${override}"`);
    return [a, b];
  }
  const kinds = selectedTargets();
  return kinds.length === 2 && kinds[0] && kinds[1] ? [kinds[0], kinds[1]] : undefined;
}

export const SKIP_REASON = 'needs two targets (TARGET=both, the default, or DIFF_PAIR)';

/** Seed for the random suites: DIFF_SEED, or a fixed one so that CI runs are reproducible. */
export const SEED = Number(process.env['DIFF_SEED'] ?? 424242);
export const RUNS = Number(process.env['DIFF_RUNS'] ?? 100);

/** fast-check parameters shared by the differential properties. */
export function fcParams(runs = RUNS): fc.Parameters<unknown> {
  return { numRuns: runs, seed: SEED, interruptAfterTimeLimit: 240_000, endOnFailure: false };
}

/**
 * A table with the differential families: f1 and f2 (plain), ctr (counters),
 * app (appends), sum (an Int64 sum aggregate); created one by one so that
 * their creation order is the same everywhere.
 */
export async function differentialTable(ctx: TargetContext, prefix = 'diff'): Promise<Table> {
  const table = ctx.instance.table(uniqueTableId(prefix));
  await table.create();
  for (const family of [...FAMILIES, COUNTER, APPEND]) await table.createFamily(family);
  await ctx.client.admin.getTableAdminClient().modifyColumnFamilies({
    name: `projects/${PROJECT}/instances/${INSTANCE}/tables/${table.id}`,
    modifications: [
      { id: SUM, create: { valueType: { aggregateType: { inputType: { int64Type: { encoding: { bigEndianBytes: {} } } }, sum: {} } } } },
    ],
  });
  return table;
}
