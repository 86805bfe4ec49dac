import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a session's report goes: bench/results/<date>-<label>.md and .svg
 * (with -2, -3, ... when that name is taken: a run never overwrites another
 * run's report; report/history.ts removes the earlier one of its kind).
 */
export interface ResultFiles {
  readonly dir: string;
  readonly base: string;
  readonly markdown: string;
  readonly svg: string;
  readonly latest: string;
}

export function resultFiles(dir: string, date: string, label: string): ResultFiles {
  mkdirSync(dir, { recursive: true });
  let base = `${date}-${label}`;
  for (let n = 2; existsSync(path.join(dir, `${base}.md`)) || existsSync(path.join(dir, `${base}.svg`)); n++)
    base = `${date}-${label}-${n}`;
  return { dir, base, markdown: path.join(dir, `${base}.md`), svg: path.join(dir, `${base}.svg`), latest: path.join(dir, 'latest.md') };
}

/** bench/results/latest.md: a pointer to the newest report, with its summary. */
export function writeLatest(files: ResultFiles, title: string, command: string, summary: readonly string[]): void {
  const md = [
    '# Latest benchmark',
    '',
    `[${title}](${files.base}.md), made with \`${command}\`.`,
    '',
    ...trimBlank(summary),
    '',
    `![chart](${files.base}.svg)`,
    '',
  ];
  writeFileSync(files.latest, md.join('\n'));
}

function trimBlank(lines: readonly string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]?.trim() === '') a++;
  while (b > a && lines[b - 1]?.trim() === '') b--;
  return lines.slice(a, b);
}
