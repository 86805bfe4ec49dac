import { printable } from '../../../model/bytes.js';
import { classifySegment } from '../../key-shape.js';
import type { TableSample } from '../types.js';
import { type Rule, type RuleContext, classesAt, finding } from './context.js';

/** What the names' varying part holds. */
type Varying = 'time' | 'number' | 'name';

interface Group {
  readonly tables: readonly TableSample[];
  readonly prefix: string;
  readonly suffix: string;
  readonly parts: readonly string[];
  readonly varying: Varying;
}

/**
 * Many tables with one schema (the same family names) whose names differ
 * only in one varying part: one per customer, year or day, where a key
 * prefix would do. A year or day (or any number): an info from
 * `sameSchemaTablesInfo` tables, a warning from `sameSchemaTables`. A name
 * (a customer?): an info from `sameSchemaTables`, unsure (same families may
 * be chance). Instance-wide: reported once, on the table advice was asked
 * for if it is one of them, else on the first by name.
 */
export const tooManyTables: Rule = (ctx) => {
  const group = groups(ctx.input.tables).find((g) => g.tables.some((t) => t.name.table === ctx.id));
  if (group === undefined) return [];
  const owner = group.tables.some((t) => t.name.table === ctx.input.only) ? ctx.input.only : group.tables[0]!.name.table;
  if (owner !== ctx.id) return [];
  const n = group.tables.length;
  const { t } = ctx;
  const severity =
    group.varying === 'name'
      ? n >= t.sameSchemaTables
        ? 'info'
        : undefined
      : n >= t.sameSchemaTables
        ? 'warning'
        : n >= t.sameSchemaTablesInfo
          ? 'info'
          : undefined;
  if (severity === undefined) return [];
  const names = group.tables.map((x) => x.name.table);
  const what = { time: 'a year or date', number: 'a number', name: 'a name (a customer?)' }[group.varying];
  const stem = `${group.prefix}${group.suffix}`.replace(/^[-#:/.|_]+|[-#:/.|_]+$/g, '') || 'all';
  const message =
    `${n} tables have the same column families (${group.tables[0]!.families.map((f) => `\`${f.name}\``).join(', ') || 'none'}) and names ` +
    `that differ only in ${what}: ${names
      .slice(0, 4)
      .map((x) => `\`${x}\``)
      .join(', ')}${n > 4 ? ', …' : ''}. Each table has its own ` +
    `tablets, splits and load balancing, so small tables cannot share nodes' work, queries across them need one request per ` +
    `table, and the instance allows at most 1,000 tables.${severity === 'info' && group.varying === 'name' ? ' Not sure they are one dataset: the same families may be chance.' : ''}`;
  return [
    finding(
      ctx,
      'too-many-tables',
      severity,
      message,
      {
        tables: n,
        threshold: severity === 'warning' ? t.sameSchemaTables : group.varying === 'name' ? t.sameSchemaTables : t.sameSchemaTablesInfo,
        names: names.slice(0, 5),
        varying: group.parts.slice(0, 5),
      },
      suggestion(ctx, group, stem),
    ),
  ];
};

function suggestion(ctx: RuleContext, group: Group, stem: string): string {
  const first = group.tables[0]!;
  const key = first === ctx.table ? ctx.shape.keys[0] : first.keys[0];
  const part = group.parts[0]!;
  const k = key === undefined ? 'key' : printable(key);
  if (group.varying === 'time') {
    const timed =
      first === ctx.table &&
      ctx.shape.segments.length > 0 &&
      [...Array(ctx.shape.segments[0]!.length).keys()].some((p) => classesAt(ctx.shape, p).some((c) => c.kind === 'timestamp'));
    return (
      `Use one table \`${stem}\` and keep the time in the key after the identifier: \`${first.name.table}\` row \`${k}\` → \`${stem}\` row ` +
      `\`${timed ? k : `${k}#${part}`}\`; a max-age GC rule then expires old data instead of dropping tables.`
    );
  }
  return `Use one table \`${stem}\` with the varying part as the key's first field: \`${first.name.table}\` row \`${k}\` → \`${stem}\` row \`${part}#${k}\`.`;
}

/** Tables grouped by family names, each group's names split into a shared prefix and suffix around one varying part. */
function groups(tables: readonly TableSample[]): Group[] {
  const bySchema = new Map<string, TableSample[]>();
  for (const table of tables) {
    // A table without families has no schema yet to share.
    if (table.families.length === 0) continue;
    const schema = table.families
      .map((f) => f.name)
      .sort()
      .join('\n');
    bySchema.set(schema, [...(bySchema.get(schema) ?? []), table]);
  }
  const out: Group[] = [];
  for (const members of bySchema.values()) {
    if (members.length < 2) continue;
    const sorted = [...members].sort((a, b) => (a.name.table < b.name.table ? -1 : 1));
    const names = sorted.map((x) => x.name.table);
    const prefix = toToken(
      common(names),
      names.map((x) => x.slice(common(names).length)),
      'end',
    );
    const rest = names.map((x) => x.slice(prefix.length));
    const reversed = common(rest.map((x) => [...x].reverse().join('')));
    const suffix = toToken(
      [...reversed].reverse().join(''),
      rest.map((x) => x.slice(0, x.length - reversed.length)),
      'start',
    );
    const parts = names.map((x) => x.slice(prefix.length, x.length - suffix.length));
    const varying = kindOf(parts, prefix + suffix);
    if (varying !== undefined) out.push({ tables: sorted, prefix, suffix, parts, varying });
  }
  return out;
}

function kindOf(parts: readonly string[], stem: string): Varying | undefined {
  if (parts.some((p) => p === '')) return undefined;
  const year = (p: string): boolean => /^\d{4}$/.test(p) && Number(p) >= 1990 && Number(p) < 2100;
  if (parts.every((p) => year(p) || classifySegment(p).kind === 'timestamp' || /^\d{4}[_-]\d{2}(?:[_-]\d{2})?$/.test(p))) return 'time';
  if (parts.every((p) => /^\d+$/.test(p))) return 'number';
  if (stem.length >= 3 && parts.every((p) => /^[A-Za-z0-9]+$/.test(p))) return 'name';
  return undefined;
}

function common(names: readonly string[]): string {
  let p = names[0] ?? '';
  for (const n of names) while (!n.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * A shared prefix (suffix) cut back to a token boundary: `events_202` +
 * `1`, `2` → `events_` + `2021`, `2022` (the varying part is a whole number or word).
 */
function toToken(shared: string, parts: readonly string[], side: 'start' | 'end'): string {
  const edge = (s: string): string => (side === 'end' ? s.slice(0, 1) : s.slice(-1));
  let out = shared;
  for (const cls of [/\d/, /[A-Za-z]/]) {
    const last = (): string => (side === 'end' ? out.slice(-1) : out.slice(0, 1));
    if (!parts.some((p) => cls.test(edge(p)))) continue;
    while (out !== '' && cls.test(last())) out = side === 'end' ? out.slice(0, -1) : out.slice(1);
  }
  return out;
}
