import type { OpLog } from './op-arbitraries.js';
import { showOp } from './ops.js';
import { runLog } from './run-log.js';
import type { System } from './systems.js';

/**
 * The first difference between a reference transcript and another
 * system's, described with the operation that produced it, or undefined
 * when they are equal.
 */
export function firstDifference(
  log: OpLog,
  reference: readonly string[],
  actual: readonly string[],
  systemName: string,
): string | undefined {
  const n = Math.max(reference.length, actual.length);
  for (let i = 0; i < n; i++) {
    const want = reference[i];
    const got = actual[i];
    if (want === got) continue;
    const op = log.ops[i];
    return [
      `${systemName} differs from the memory engine at transcript line ${i}${op === undefined ? '' : ` (op ${i}: ${showOp(op)})`}:`,
      `  memory: ${want ?? '<missing>'}`,
      `  ${systemName}: ${got ?? '<missing>'}`,
    ].join('\n');
  }
  return undefined;
}

/**
 * Runs `log` on the reference system and on each of `others` (opened one
 * at a time, each closed afterwards) and throws at the first system whose
 * transcript differs.
 */
export async function checkLog(
  log: OpLog,
  openReference: () => Promise<System>,
  others: readonly (() => Promise<System>)[],
): Promise<void> {
  const reference = await transcriptOf(openReference, log);
  for (const open of others) {
    const system = await open();
    let actual: string[];
    try {
      actual = await runLog(system, log);
    } finally {
      await system.close();
    }
    const difference = firstDifference(log, reference, actual, system.name);
    if (difference !== undefined) throw new Error(difference);
  }
}

async function transcriptOf(open: () => Promise<System>, log: OpLog): Promise<string[]> {
  const system = await open();
  try {
    return await runLog(system, log);
  } finally {
    await system.close();
  }
}
