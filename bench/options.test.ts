import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE, parseOptions } from './options.js';
import type { Options } from './options.js';

function options(argv: readonly string[]): Options {
  const parsed = parseOptions(argv);
  if (parsed.kind !== 'run') throw new Error('expected a run');
  return parsed.options;
}

describe('bench options', () => {
  it('takes tabletop-bg0 and tabletop-bg1 as targets, in the order runs alternate', () => {
    expect(options(['--targets', 'emulator,tabletop-bg1,tabletop-bg0,tabletop']).targets).toEqual([
      'tabletop',
      'tabletop-bg0',
      'tabletop-bg1',
      'emulator',
    ]);
    expect(() => options(['--targets', 'tabletop-bg2'])).toThrow(/unknown target "tabletop-bg2".*tabletop-bg1/);
    expect(options(['--targets', 'tabletop-off-again,tabletop-off,tabletop-again,tabletop']).targets).toEqual([
      'tabletop',
      'tabletop-off',
      'tabletop-again',
      'tabletop-off-again',
    ]);
  });

  it('runs tabletop-base from the build --base-dist names, and only with it', () => {
    const dist = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-base-')), 'dist');
    expect(() => options(['--targets', 'tabletop,tabletop-base'])).toThrow(/tabletop-base needs --base-dist/);
    expect(() => options(['--targets', 'tabletop,tabletop-base', '--base-dist', dist])).toThrow(/does not exist \(build that checkout/);
    mkdirSync(path.join(dist, 'cli'), { recursive: true });
    writeFileSync(path.join(dist, 'cli', 'main.js'), '');
    const o = options(['--targets', 'tabletop-base,tabletop', '--base-dist', dist]);
    expect(o.targets).toEqual(['tabletop', 'tabletop-base']);
    expect(o.baseDist).toBe(path.resolve(dist));
    expect(() => options(['--base-dist', dist])).toThrow(/--base-dist is for --targets/);
  });

  it('runs mixed after the isolated workloads and before the start-ups, or alone with --only', () => {
    const all = options([]).workloads.map((w) => w.name);
    expect(all.indexOf('mixed')).toBeGreaterThan(all.indexOf('lg-scan'));
    expect(all.indexOf('mixed')).toBeLessThan(all.indexOf('startup-in-process'));
    const only = options(['--quick', '--only', 'mixed,lg-write']);
    expect(only.workloads.map((w) => w.name)).toEqual(['lg-write', 'mixed']);
    expect(only.kind).toBe('partial');
    // The load group is the isolated bulk loads only.
    expect(options(['--only', 'load']).workloads.map((w) => w.name)).toEqual(['load-100b', 'load-1k', 'load-large']);
  });

  it('starts servers afresh for each run only when asked', () => {
    expect(options([]).freshServers).toBe(false);
    expect(options(['--fresh-servers']).freshServers).toBe(true);
    expect(USAGE).toMatch(/--fresh-servers\s+start every target's server afresh/);
  });

  it('is a full run with every workload on the default targets, more targets or not', () => {
    expect(options([]).kind).toBe('full');
    expect(options(['--targets', 'tabletop-bg1,tabletop,tabletop-off,emulator']).kind).toBe('full');
    expect(options(['--targets', 'tabletop,emulator']).kind).toBe('partial');
    expect(options(['--quick']).kind).toBe('partial');
  });

  it('names both in --help', () => {
    expect(parseOptions(['--help'])).toEqual({ kind: 'help' });
    expect(USAGE).toMatch(/tabletop-bg0 \(the same build, serve\s+--background-threads 0/);
    expect(USAGE).toMatch(/tabletop-bg1 \(serve --background-threads 1/);
    expect(USAGE).toMatch(/mixed: a bulk load/);
  });
});
