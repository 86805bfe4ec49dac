import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Data-driven test files: cases of a directive line, an input (one or more lines), a `----` line, and the
 * expected output up to a blank line. Lines starting with `#` between cases are comments, kept on rewrite.
 *
 *     # precedence
 *     parse
 *     SELECT 1 + 2 * 3
 *     ----
 *     (select (+ 1 (* 2 3)))
 *
 * With the environment variable UPDATE_SQL_GOLDEN=1, `rewriteGoldenFile` writes the actual outputs back into
 * the file (review the diff before committing it).
 */
export interface GoldenCase {
  /** Comment lines (with their `#`) and blank lines before the case. */
  readonly before: readonly string[];
  readonly directive: string;
  readonly input: string;
  readonly expected: string;
  /** 1-based line of the directive, for test names. */
  readonly line: number;
}

export const REWRITE_GOLDEN = process.env['UPDATE_SQL_GOLDEN'] === '1';

export function readGoldenFile(path: string): GoldenCase[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const cases: GoldenCase[] = [];
  let before: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '' || line.startsWith('#')) {
      before.push(line);
      i++;
      continue;
    }
    const at = i + 1;
    const directive = line.trim();
    const input: string[] = [];
    i++;
    while (i < lines.length && lines[i] !== '----') input.push(lines[i++]!);
    if (i >= lines.length) throw new Error(`${path}:${at}: a case needs a ---- line after its input`);
    i++;
    const expected: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') expected.push(lines[i++]!);
    cases.push({ before, directive, input: input.join('\n'), expected: expected.join('\n'), line: at });
    before = [];
  }
  return cases;
}

/** Writes the cases back with `actual` (by case index) as their expected outputs. */
export function rewriteGoldenFile(path: string, cases: readonly GoldenCase[], actual: ReadonlyMap<number, string>): void {
  const out: string[] = [];
  cases.forEach((c, k) => {
    const expected = actual.get(k) ?? c.expected;
    if (/\n\s*\n/.test(expected) || expected.trim() === '')
      throw new Error(`case at line ${c.line}: an output must be non-empty, without blank lines`);
    out.push(...c.before, c.directive, c.input, '----', expected);
  });
  let text = out.join('\n');
  if (!text.endsWith('\n')) text += '\n';
  writeFileSync(path, text);
}
