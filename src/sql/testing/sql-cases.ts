import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Data-driven SQL cases, in a text file of blocks separated by blank lines:
 *
 *     # a comment naming the case
 *     query [stats]
 *     SELECT ...            (one or more lines)
 *     [param name TYPE = expression]
 *     ----
 *     name TYPE, name TYPE  (the result columns)
 *     row values, ...
 *     [-- scanned N]        (with `stats`)
 *
 * or `ERROR Code: message` after `----`. Run with SQL_CASES_REWRITE=1 to write the actual results into the file
 * (then read the diff).
 */
export interface SqlCase {
  readonly comment: string;
  readonly stats: boolean;
  readonly query: string;
  readonly params: readonly { readonly name: string; readonly type: string; readonly expr: string }[];
  readonly expected: string;
  readonly line: number;
}

export function readCases(path: string): SqlCase[] {
  const text = readFileSync(path, 'utf8');
  const blocks = text.split(/\n\s*\n/);
  const cases: SqlCase[] = [];
  let line = 1;
  for (const block of blocks) {
    const startLine = line;
    line += block.split('\n').length + 1;
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    const comment = lines.filter((l) => l.startsWith('#')).join('\n');
    const body = lines.filter((l) => !l.startsWith('#'));
    if (body.length === 0) continue;
    const head = body[0]!.trim().split(/\s+/);
    if (head[0] !== 'query') throw new Error(`${path}:${startLine}: a case starts with 'query'`);
    const sep = body.indexOf('----');
    const queryLines = body.slice(1, sep < 0 ? undefined : sep);
    const params = queryLines
      .filter((l) => l.startsWith('param '))
      .map((l) => {
        const m = /^param\s+(\w+)\s+(.+?)\s+=\s+(.+)$/.exec(l);
        if (m === null) throw new Error(`${path}: bad param line: ${l}`);
        return { name: m[1]!, type: m[2]!, expr: m[3]! };
      });
    cases.push({
      comment,
      stats: head.includes('stats'),
      query: queryLines.filter((l) => !l.startsWith('param ')).join('\n'),
      params,
      expected: sep < 0 ? '' : body.slice(sep + 1).join('\n'),
      line: startLine,
    });
  }
  return cases;
}

export function writeCases(path: string, cases: readonly SqlCase[], actual: readonly string[]): void {
  const blocks = cases.map((c, i) =>
    [
      ...(c.comment === '' ? [] : [c.comment]),
      c.stats ? 'query stats' : 'query',
      c.query,
      ...c.params.map((p) => `param ${p.name} ${p.type} = ${p.expr}`),
      '----',
      actual[i]!,
    ].join('\n'),
  );
  writeFileSync(path, blocks.join('\n\n') + '\n');
}

export const REWRITE = process.env['SQL_CASES_REWRITE'] === '1';
