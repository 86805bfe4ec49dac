import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Compiles the start-up probe (probe.ts and what it imports) with the
 * project's compiler into `.tmp/bench-startup/`, so that it runs under plain
 * `node`: measured under tsx, every module tabletop loads would pass through
 * tsx's hooks. Returns the compiled probe's path.
 */
export function buildProbe(repoRoot: string): string {
  const out = path.join(repoRoot, '.tmp', 'bench-startup');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const config = {
    extends: path.join(repoRoot, 'tsconfig.json'),
    compilerOptions: { rootDir: repoRoot, outDir: out, declaration: false, sourceMap: false, noEmitOnError: true },
    files: [path.join(repoRoot, 'bench', 'startup', 'probe.ts')],
    include: [],
  };
  const configFile = path.join(out, 'tsconfig.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  // The output is ES modules (the repository's package.json says "type": "module"; this directory needs its own).
  writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n');
  const tsc = path.join(repoRoot, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', configFile], { cwd: repoRoot, encoding: 'utf8' });
  if (r.error !== undefined) throw new Error(`could not run ${tsc}: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(`compiling the start-up probe failed:\n${`${r.stdout}${r.stderr}`.trim().split('\n').slice(0, 10).join('\n')}`);
  return path.join(out, 'bench', 'startup', 'probe.js');
}
