import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Builds tabletop (dist/) so that the benchmark measures the current source.
 * Returns a warning when the compiler reported errors but a server was
 * still emitted; throws when there is nothing to run.
 */
export function buildTabletop(repoRoot: string): string | undefined {
  const tsc = path.join(repoRoot, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', 'tsconfig.build.json'], { cwd: repoRoot, encoding: 'utf8' });
  const main = path.join(repoRoot, 'dist', 'cli', 'main.js');
  if (r.error !== undefined) throw new Error(`could not run ${tsc}: ${r.error.message}`);
  if (r.status === 0) return undefined;
  const output = `${r.stdout}${r.stderr}`.trim().split('\n').slice(0, 10).join('\n');
  if (!existsSync(main)) throw new Error(`building tabletop failed and ${main} does not exist:\n${output}`);
  return `the tabletop build reported errors; benchmarking what it emitted in dist/. First lines:\n${output}`;
}
