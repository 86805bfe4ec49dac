import { describeGcRule } from '../../../model/gc.js';
import { retentionMicros } from './gc-bounds.js';
import { type Rule, finding, round } from './context.js';

const DAY_MICROS = 86_400e6;

/**
 * More than `maxFamilies` column families (90: near the limit of 100 a table; Google: "about 100"): a warning.
 * Families whose max-age retention differs `retentionRatio` times over (an
 * hour beside a year): an info, unsure. Separate families for separate
 * retention is the right use of families; but the short-lived data usually
 * also has another write rate and read pattern, and a table of its own can
 * be sized, replicated and dropped on its own.
 */
export const tooManyFamilies: Rule = (ctx) => {
  const { families } = ctx.table;
  const { t } = ctx;
  const names = families.map((f) => f.name);
  if (families.length > t.maxFamilies) {
    return [
      finding(
        ctx,
        'too-many-families',
        'warning',
        `The table has ${families.length} column families (more than about ${t.maxFamilies}). Each family is stored and ` +
          `compacted apart and every row read touches each one, so many families slow reads, compactions and schema changes; ` +
          `families that are read together belong together.`,
        { families: families.length, threshold: t.maxFamilies, examples: names.slice(0, 5) },
        `Group columns read together into a few families and tell them apart by qualifier: \`${names[0]}:x\`, \`${names[1] ?? names[0]}:y\` → \`data:${names[0]}.x\`, \`data:${names[1] ?? names[0]}.y\`.`,
      ),
    ];
  }
  const aged = families.flatMap((f) => {
    const age = retentionMicros(f.gcRule);
    return age === undefined ? [] : [{ name: f.name, age, rule: describeGcRule(f.gcRule) }];
  });
  if (aged.length < 2) return [];
  const short = aged.reduce((a, b) => (b.age < a.age ? b : a));
  const long = aged.reduce((a, b) => (b.age > a.age ? b : a));
  const ratio = long.age / short.age;
  if (ratio < t.retentionRatio) return [];
  return [
    finding(
      ctx,
      'too-many-families',
      'info',
      `Families keep data for very different times: \`${short.name}\` (${short.rule}) and \`${long.name}\` (${long.rule}), ` +
        `${round(ratio)} times over. Families are the right place for different retention, so this may be fine; but data kept ` +
        `for ${round(short.age / DAY_MICROS)} days usually also differs in write rate and reads from data kept ` +
        `${round(long.age / DAY_MICROS)} days, and in one table it shares the rows' splits and nodes.`,
      {
        shortFamily: short.name,
        shortRule: short.rule,
        longFamily: long.name,
        longRule: long.rule,
        ratio: round(ratio),
        threshold: t.retentionRatio,
      },
      `If the short-lived \`${short.name}\` data is written or read apart from the rest, give it a table of its own with the same ` +
        `row keys (\`${ctx.id}_${short.name}\`), so that it is sized, replicated and expired on its own.`,
    ),
  ];
};
