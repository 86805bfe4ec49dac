import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/targets.js';

/**
 * The Node versions tabletop supports (package.json `engines.node`, which the
 * README's "Node versions" section states) are ones every runtime dependency
 * supports too, so installing tabletop on them prints no EBADENGINE warning
 * for its own dependencies. Read from package-lock.json: every package that
 * `npm ci --omit=dev` would install on some platform (the platform-specific
 * binaries of the native dependencies included), with the engines npm
 * recorded for it.
 */

interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}

const read = (file: string): unknown => JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8'));
const ours = (read('package.json') as { engines?: { node?: string } }).engines?.node ?? '';
const locked = (read('package-lock.json') as { packages: Record<string, LockedPackage> }).packages;

/** Runtime packages of the lockfile: everything but the root and the devDependencies' tree. */
function runtimePackages(): [string, LockedPackage][] {
  return Object.entries(locked).filter(([where, p]) => where !== '' && p.dev !== true);
}

/** A package's engines.node; undefined when it sets none (old lockfiles may hold an array of strings). */
function nodeRange(p: LockedPackage): string | undefined {
  return Array.isArray(p.engines) ? undefined : (p.engines as { node?: string } | undefined)?.node;
}

describe('Node versions', () => {
  it('package.json states a valid range', () => {
    expect(semver.validRange(ours)).not.toBeNull();
  });

  it('the README states the same range', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.includes(`\`${ours}\``), `README.md does not name \`${ours}\``).toBe(true);
  });

  it('every runtime dependency supports every version in the range', () => {
    const runtime = runtimePackages();
    expect(runtime.map(([where]) => where)).toEqual(expect.arrayContaining(['node_modules/re2', 'node_modules/@grpc/grpc-js']));
    const narrower = runtime.flatMap(([where, p]) => {
      const theirs = nodeRange(p);
      return theirs === undefined || semver.subset(ours, theirs)
        ? []
        : [`${where.replace(/^.*node_modules\//, '')}@${p.version ?? '?'} wants node ${theirs}`];
    });
    expect(narrower).toEqual([]);
  });

  it('the check tells a narrower range from a wider one', () => {
    expect(semver.subset(ours, '^20.17.0 || >=22.9.0')).toBe(true);
    expect(semver.subset(ours, '>=24')).toBe(false);
  });
});
