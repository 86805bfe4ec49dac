import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Random } from '../../testing/random.js';
import { advise } from './advise.js';
import { ids, input, table, tablet, traffic } from './testing/builders.js';
import type { RuleId, Severity, TableSample } from './types.js';

/**
 * Randomised variants of the anti-patterns and of the good designs (formats,
 * widths, entity counts, write orders drawn from a seed): every bad variant
 * is flagged with its rule, no good variant gets a warning or a danger. The
 * figures are the advisor's precision and recall over these variants.
 */

const VARIANTS = 25;
const T0 = Date.UTC(2026, 0, 1);

interface Variant {
  readonly table: TableSample;
  /** The rule that must flag it (bad) at least at this severity; undefined: a good design. */
  readonly expect?: { readonly rule: RuleId; readonly severity: Severity };
}

/** The i-th of a variant's timestamps, `step` ms apart. */
function timestamp(format: number, i: number, step: number): string {
  const ms = T0 + i * step;
  const iso = new Date(ms).toISOString();
  return [
    iso,
    iso.replace('.000Z', 'Z'),
    String(Math.floor(ms / 1000)),
    String(ms),
    String(ms * 1000),
    iso.slice(0, 10).replaceAll('-', '/'),
    iso.replace(/[-:]/g, '').slice(0, 15) + 'Z',
  ][format]!;
}

/** Keys written in order, and the sample a store keeps (sorted, distinct). */
function sample(id: string, order: readonly string[], more: Partial<TableSample> = {}): TableSample {
  return table(id, order, { writeOrder: order.slice(-256), ...more });
}

function spread<T>(r: Random, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.below(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const bad: Record<string, (r: Random) => Variant> = {
  timestampLeading: (r) => {
    const format = r.below(7);
    const entities = ids(r.pick(['sensor', 'device', 'user-']), r.int(1, 20));
    const step = r.int(1, 100_000);
    const order = Array.from(
      { length: r.int(20, 300) },
      (_, i) => `${timestamp(format, i, step)}${format === 5 ? '/' : '#'}${r.pick(entities)}`,
    );
    return { table: sample('t', order), expect: { rule: 'timestamp-leading-key', severity: format === 5 ? 'warning' : 'danger' } };
  },
  sequential: (r) => {
    const width = r.int(6, 12);
    const start = r.int(1, 10_000);
    const prefix = r.pick(['order#', 'invoice:', 'msg_', '']);
    const order = Array.from({ length: r.int(20, 300) }, (_, i) => `${prefix}${String(start + i).padStart(width, '0')}`);
    return { table: sample('t', order), expect: { rule: 'sequential-key', severity: 'warning' } };
  },
  hashedRanges: (r) => {
    const kind = r.below(3);
    const keys = Array.from({ length: r.int(20, 200) }, (_, i) => {
      const h = createHash('sha256').update(`${r.seed}-${i}`).digest();
      const id = [h.toString('hex').slice(0, r.int(16, 40)), randomUUID(), h.toString('base64url').slice(0, 22)][kind]!;
      return r.chance(0.5) ? `${id}#item${i}` : id;
    });
    const rows = r.int(5, 100);
    // Buckets of several rows (a larger table): each scan entering one returns them all.
    const t = traffic(keys, () => ({ rows, readOps: 2, rowsRead: 2 * rows, rowsReturned: 2 * rows }));
    return { table: table('t', keys, { traffic: t }), expect: { rule: 'hashed-key', severity: 'warning' } };
  },
  unreversedDomain: (r) => {
    const hosts = Array.from(
      { length: r.int(3, 30) },
      () =>
        `${r.pick(['www', 'shop', 'api', 'docs', 'mail'])}.${r.pick(['example', 'acme', 'globex'])}.${r.pick(['com', 'org', 'io', 'co.uk', 'de'])}`,
    );
    const keys = Array.from({ length: r.int(10, 200) }, (_, i) => `${r.pick(hosts)}${r.pick(['/', '#'])}page${i}`);
    return { table: table('t', keys), expect: { rule: 'unreversed-domain', severity: 'warning' } };
  },
  hotRow: (r) => {
    const keys = ids('counter#', r.int(10, 100));
    const hot = keys[r.int(1, keys.length - 2)]!;
    const t = traffic(keys, (k) => ({ writeOps: k === hot ? r.int(2000, 9000) : r.int(0, 20) }));
    return { table: table('t', keys, { traffic: t }), expect: { rule: 'hot-row', severity: 'warning' } };
  },
  lowCardinality: (r) => {
    const values = ['eu', 'us', 'ap', 'sa', 'af'].slice(0, r.int(2, 5));
    const keys = values.flatMap((v) => ids('sensor', r.int(10, 40)).map((s) => `${v}#${s}`));
    const busy = r.pick(values);
    const t = traffic(keys, (k) => ({ writeOps: k.startsWith(`${busy}#`) ? r.int(100, 200) : r.int(0, 3) }));
    return { table: table('t', keys, { traffic: t }), expect: { rule: 'low-cardinality-prefix', severity: 'warning' } };
  },
  hotTablet: (r) => {
    const keys = ids('k', 100, 4);
    const n = r.int(2, 12);
    const hot = r.below(n);
    const tablets = Array.from({ length: n }, (_, q) =>
      tablet('t', {
        start: q === 0 ? '' : keys[Math.floor((q * 100) / n)]!,
        end: q === n - 1 ? undefined : keys[Math.floor(((q + 1) * 100) / n)],
        requestsPerSec: q === hot ? r.int(500, 2000) : r.int(0, 20),
      }),
    );
    return { table: table('t', keys, { tablets }), expect: { rule: 'hot-tablet', severity: 'warning' } };
  },
};

const good: Record<string, (r: Random) => Variant> = {
  idThenTime: (r) => {
    const format = r.below(7);
    const entities = ids(r.pick(['sensor', 'device', 'user-']), r.int(1, 30));
    const byTime = r.chance(0.5);
    const n = r.int(5, 20);
    const step = r.int(1, 100_000);
    const order = byTime
      ? Array.from({ length: n }, (_, i) => entities.map((e) => `${e}#${timestamp(format, i, step)}`)).flat()
      : entities.flatMap((e) => Array.from({ length: n }, (_, i) => `${e}#${timestamp(format, i, step)}`));
    return { table: sample('t', order) };
  },
  latestFirst: (r) => {
    const entities = ids('sensor', r.int(1, 30));
    const max = r.chance(0.5) ? 9223372036854775807n : 9999999999999n;
    const order = Array.from({ length: r.int(5, 20) }, (_, i) =>
      entities.map((e) => `${e}#${String(max - BigInt(T0 + i * 1000)).padStart(19, '0')}`),
    ).flat();
    return { table: sample('t', order) };
  },
  salted: (r) => {
    const buckets = r.pick([4, 8, 16, 32]);
    const width = String(buckets - 1).length;
    const order = Array.from(
      { length: r.int(50, 300) },
      (_, i) =>
        `${String(r.below(buckets)).padStart(r.chance(0.5) ? width : 1, '0')}#sensor${String(r.int(1, 50)).padStart(3, '0')}#${T0 + i}`,
    );
    const keys = [...new Set(order)].sort();
    const t = traffic(keys, () => ({ writeOps: r.int(5, 15), readOps: r.int(1, 5), rowsRead: 10, rowsReturned: 10 }));
    return { table: sample('t', order, { traffic: t }) };
  },
  tenants: (r) => {
    const keys = spread(
      r,
      ids('tenant', r.int(2, 60)).flatMap((t) => ids(`${t}#user#`, r.int(1, 10), 5)),
    );
    const t = traffic(keys, () => ({ writeOps: r.int(5, 15), readOps: 3, rowsRead: 3, rowsReturned: 3 }));
    return { table: sample('t', keys, { traffic: t }) };
  },
  reversedDomains: (r) => {
    const hosts = Array.from(
      { length: r.int(3, 30) },
      () => `${r.pick(['com', 'org', 'io', 'uk.co'])}.${r.pick(['example', 'acme', 'globex'])}.${r.pick(['www', 'shop', 'api'])}`,
    );
    return {
      table: sample(
        't',
        spread(
          r,
          Array.from({ length: r.int(10, 200) }, (_, i) => `${r.pick(hosts)}/page${String(i).padStart(4, '0')}`),
        ),
      ),
    };
  },
  hashedPointReads: (r) => {
    const keys = Array.from({ length: r.int(20, 200) }, (_, i) => createHash('sha1').update(`${r.seed}/${i}`).digest('hex'));
    const t = traffic(keys, () => ({ writeOps: r.int(1, 5), readOps: r.int(1, 5), rowsRead: 1, rowsReturned: 1 }));
    return { table: sample('t', keys, { traffic: t }) };
  },
};

const RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, danger: 2 };

describe('randomised variants', () => {
  it(`flag every bad variant with its rule and no good one (${VARIANTS} of each)`, () => {
    const missed: string[] = [];
    const wrong: string[] = [];
    for (const [name, make] of Object.entries(bad)) {
      for (let seed = 1; seed <= VARIANTS; seed++) {
        const v = make(new Random(seed));
        const fs = advise(input([v.table])).findings.filter(
          (f) => f.rule === v.expect!.rule && RANK[f.severity] >= RANK[v.expect!.severity],
        );
        if (fs.length === 0) missed.push(`${name} #${seed}: ${v.table.keys.slice(0, 2).join(' ')}`);
      }
    }
    for (const [name, make] of Object.entries(good)) {
      for (let seed = 1; seed <= VARIANTS; seed++) {
        const v = make(new Random(seed));
        const loud = advise(input([v.table])).findings.filter((f) => f.severity !== 'info');
        if (loud.length > 0)
          wrong.push(`${name} #${seed}: ${loud.map((f) => `${f.rule} ${f.severity}`).join(', ')} on ${v.table.keys.slice(0, 2).join(' ')}`);
      }
    }
    expect(missed).toEqual([]);
    expect(wrong).toEqual([]);
  });
});
