import { printable } from '../../../model/bytes.js';
import { describeGcRule } from '../../../model/gc.js';
import type { Finding } from '../types.js';
import { bounded } from './gc-bounds.js';
import { type Rule, finding } from './context.js';

/**
 * A family without a GC rule that ever collects (none, an empty union or
 * intersection) whose sampled rows hold columns with `manyVersions` or more
 * versions: every write adds a cell that stays for ever. A warning.
 */
export const unboundedVersions: Rule = (ctx) => {
  const out: Finding[] = [];
  for (const family of ctx.table.families) {
    if (bounded(family.gcRule)) continue;
    let most = 0;
    let key = '';
    for (const row of ctx.table.rowProfiles) {
      const f = row.families.find((x) => x.family === family.name);
      if (f !== undefined && f.maxVersions > most) [most, key] = [f.maxVersions, row.key];
    }
    if (most < ctx.t.manyVersions) continue;
    const k = printable(key);
    out.push(
      finding(
        ctx,
        'unbounded-versions',
        'warning',
        `Family \`${family.name}\` has no garbage-collection policy that ever removes a cell (${describeGcRule(family.gcRule)}), and ` +
          `versions pile up: the row \`${k}\` holds ${most} versions of one column. Every write adds a cell that stays for ever, ` +
          `so rows and reads grow without end and old versions slow every read of the row.`,
        { family: family.name, gcRule: describeGcRule(family.gcRule), maxVersions: most, key: k, threshold: ctx.t.manyVersions },
        `Set a policy (\`cbt setgcpolicy ${ctx.id} ${family.name} maxversions=1\`, or \`maxage=30d\`). If the versions are a ` +
          `time series, put time in the key instead: \`${k}\` → \`${k}#<timestamp>\`, one row per reading.`,
      ),
    );
  }
  return out;
};
