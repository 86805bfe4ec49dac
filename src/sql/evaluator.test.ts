import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fixture } from '../db/testing/db-fixture.js';
import { isTabletopError } from '../model/errors.js';
import { createSqlEngine } from './index.js';
import type { SqlEngine } from './engine.js';
import { typeText, type SqlType, type SqlValue } from './types.js';
import { type GoldenCase, REWRITE_GOLDEN, readGoldenFile, rewriteGoldenFile } from './syntax/testing/golden-file.js';
import { showValue } from './testing/show-value.js';
import { SQL_INSTANCE_NAME, sqlFixture, sqlViews } from './testing/fixture.js';

/**
 * The evaluator suite: every `*.cases` file under testing/cases runs against the in-memory fixture
 * (testing/fixture.ts) through createSqlEngine, prepare then execute. A case (the golden-file format of
 * syntax/testing/golden-file.ts):
 *
 *     query [stats]
 *     SELECT ...                    (one or more lines)
 *     param name TYPE = expression  (optional, any number)
 *     ----
 *     name TYPE, name TYPE          (the result columns)
 *     value, value                  (one line per row)
 *     -- scanned N, returned M      (with `stats`)
 *
 * or `ERROR Code: message`. The fixture's views (sqlViews) are there too. UPDATE_SQL_GOLDEN=1 writes the actual results into the files (review the diff).
 *
 * The whole suite runs twice: with the default spill budget, and with a budget of one byte, so that every ORDER BY,
 * GROUP BY and DISTINCT spills (nearly) every row to temporary files and merges them back: the results and their
 * order must be the same.
 */

interface SqlCase {
  readonly stats: boolean;
  readonly query: string;
  readonly params: readonly { readonly name: string; readonly type: string; readonly expr: string }[];
}

function sqlCase(c: GoldenCase): SqlCase {
  const words = c.directive.split(/\s+/);
  if (words[0] !== 'query') throw new Error(`line ${c.line}: a case starts with 'query'`);
  const lines = c.input.split('\n');
  const params = lines
    .filter((l) => l.startsWith('param '))
    .map((l) => {
      const m = /^param\s+(\w+)\s+(.+?)\s+=\s+(.+)$/.exec(l);
      if (m === null) throw new Error(`line ${c.line}: bad param line: ${l}`);
      return { name: m[1]!, type: m[2]!, expr: m[3]! };
    });
  return { stats: words.includes('stats'), query: lines.filter((l) => !l.startsWith('param ')).join('\n'), params };
}

const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'testing', 'cases');

let fx: Fixture;
let engine: SqlEngine;
let spilling: SqlEngine;
/** Runs spilled by all cases so far (the spilling pass must have spilled). */
let spilledRuns = 0;

beforeAll(async () => {
  fx = await sqlFixture();
  const options = { nowMicros: () => 1_700_000_000_000_000n, views: sqlViews() };
  engine = createSqlEngine(fx.db, options);
  spilling = createSqlEngine(fx.db, { ...options, spill: { budgetBytes: 1 } });
});
afterAll(async () => {
  await fx.db.close();
});

async function paramValues(engine: SqlEngine, c: SqlCase): Promise<{ types: Map<string, SqlType>; values: Map<string, SqlValue> }> {
  const types = new Map<string, SqlType>();
  const values = new Map<string, SqlValue>();
  for (const p of c.params) {
    const prepared = await engine.prepare(SQL_INSTANCE_NAME, `SELECT CAST(${p.expr} AS ${p.type})`, new Map());
    const { rows } = engine.execute(SQL_INSTANCE_NAME, prepared.token, { params: new Map() });
    for await (const row of rows) values.set(p.name, row[0]!);
    types.set(p.name, prepared.columns[0]!.type);
  }
  return { types, values };
}

async function run(engine: SqlEngine, c: SqlCase): Promise<string> {
  try {
    const { types, values } = await paramValues(engine, c);
    const prepared = await engine.prepare(SQL_INSTANCE_NAME, c.query, types);
    const out = [prepared.columns.map((col) => `${col.name} ${typeText(col.type)}`).join(', ')];
    const result = engine.execute(SQL_INSTANCE_NAME, prepared.token, { params: values });
    for await (const row of result.rows) out.push(row.map(showValue).join(', '));
    spilledRuns += result.stats().spilledRuns ?? 0;
    if (c.stats) out.push(`-- scanned ${result.stats().rowsScanned}, returned ${result.stats().rowsReturned}`);
    return out.join('\n');
  } catch (e) {
    if (isTabletopError(e)) return `ERROR ${e.code}: ${e.message}`;
    throw e;
  }
}

for (const file of readdirSync(CASES_DIR).filter((f) => f.endsWith('.cases'))) {
  describe(file, () => {
    const path = join(CASES_DIR, file);
    const cases = readGoldenFile(path);
    if (REWRITE_GOLDEN) {
      it('rewrites the expected results', async () => {
        const actual = new Map<number, string>();
        for (const [i, c] of cases.entries()) actual.set(i, await run(engine, sqlCase(c)));
        rewriteGoldenFile(path, cases, actual);
      });
      return;
    }
    for (const c of cases) {
      it(`${file}:${c.line} ${c.input.replace(/\s+/g, ' ').slice(0, 80)}`, async () => {
        expect(await run(engine, sqlCase(c))).toBe(c.expected);
      });
      it(`${file}:${c.line} spilling every row`, async () => {
        expect(await run(spilling, sqlCase(c))).toBe(c.expected);
      });
    }
  });
}

describe('the spilling pass', () => {
  it.skipIf(REWRITE_GOLDEN)('spilled runs to temporary files', () => {
    expect(spilledRuns).toBeGreaterThan(50);
  });
});
