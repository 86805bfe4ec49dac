import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/targets.js';

/**
 * The README's row-key builder example, run as it stands (its imports pointed at this checkout's
 * sources) with tsx: it runs, and prints what its `// →` comments say, line by line.
 */

function readmeExample(): string {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Row-key builder\n'));
  const block = /```ts\n([^]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no ts block under "## Row-key builder"');
  return block;
}

describe("the README's row-key builder example", () => {
  it('runs against tabletop and prints what its comments say', () => {
    const example = readmeExample();
    const expected = [...example.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1]!);
    expect(expected.length).toBeGreaterThan(10);
    const dir = path.join(REPO_ROOT, '.tmp', `readme-keys-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'example.ts');
    const src = (p: string) => path.relative(dir, path.join(REPO_ROOT, p)).replaceAll(path.sep, '/');
    writeFileSync(
      file,
      example
        .replaceAll("from 'tabletopdb/keys'", `from '${src('src/keys/index.js')}'`)
        .replaceAll("from 'tabletopdb'", `from '${src('src/index.js')}'`),
    );
    try {
      const tsx = path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
      const out = execFileSync(process.execPath, [tsx, file], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, METADATA_SERVER_DETECTION: 'none' },
        timeout: 60_000,
      });
      expect(out.trimEnd().split('\n')).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
