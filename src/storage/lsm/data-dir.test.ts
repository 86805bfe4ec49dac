import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TabletopError } from '../../model/errors.js';
import { prepareDataDir } from './data-dir.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'tabletop-datadir-'));

function failure(dir: string): { code: string; message: string } {
  try {
    prepareDataDir(dir);
  } catch (e) {
    if (!(e instanceof TabletopError)) throw e;
    return { code: e.code, message: e.message };
  }
  throw new Error(`prepareDataDir(${dir}) succeeded`);
}

describe('prepareDataDir', () => {
  it('creates missing levels and accepts an existing directory', () => {
    const root = scratch();
    const dir = join(root, 'a', 'b', 'c');
    expect(prepareDataDir(dir)).toBe(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(prepareDataDir(dir)).toBe(dir);
  });

  it('rejects an empty path', () => {
    expect(failure('')).toEqual({ code: 'InvalidArgument', message: expect.stringContaining('path is empty') });
    expect(failure('  ').code).toBe('InvalidArgument');
  });

  it('names a file where the directory or a parent should be', () => {
    const root = scratch();
    const file = join(root, 'f');
    writeFileSync(file, 'x');
    expect(failure(file)).toEqual({ code: 'FailedPrecondition', message: `data directory ${file} is a file, not a directory` });
    expect(failure(join(file, 'sub', 'dir'))).toEqual({
      code: 'FailedPrecondition',
      message: `cannot create data directory ${join(file, 'sub', 'dir')}: ${file} is a file, not a directory`,
    });
    expect(existsSync(join(file, 'sub'))).toBe(false);
  });

  it('returns at once, with the reason, where directories cannot be created (recursive mkdir spins on /proc)', () => {
    expect(failure('/proc/tabletop-data')).toEqual({
      code: 'FailedPrecondition',
      message: 'cannot create data directory /proc/tabletop-data: directories cannot be created in /proc',
    });
    expect(failure('/proc/tabletop/a/b').message).toContain('directories cannot be created in /proc');
    expect(failure('/sys/tabletop-data').message).toMatch(/no permission to create directories in \/sys/);
  });

  it('says who owns a directory it may not write in, or may not create in', () => {
    const root = scratch();
    const locked = join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o755);
    chmodSync(root, 0o755);
    const cases = [locked, join(locked, 'new')];
    const results = asAnotherUser(cases);
    expect(results[0]).toEqual({
      code: 'FailedPrecondition',
      message: expect.stringMatching(
        new RegExp(
          `^no permission to read and write in data directory ${locked}: ${locked} is owned by uid \\d+, mode 0755; tabletop runs as uid \\d+$`,
        ),
      ),
    });
    expect(results[1]).toEqual({
      code: 'FailedPrecondition',
      message: expect.stringMatching(
        new RegExp(`^no permission to create data directory ${join(locked, 'new')} in ${locked}: ${locked} is owned by uid`),
      ),
    });
  });
});

/**
 * Runs prepareDataDir on each path as a user who does not own them: as
 * `nobody` when the tests run as root (who may write anywhere), else as the
 * current user on directories made unwritable to it.
 */
function asAnotherUser(dirs: readonly string[]): unknown[] {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root) {
    for (const d of dirs) if (existsSync(d)) chmodSync(d, 0o555);
    try {
      return dirs.map((d) => failure(d));
    } finally {
      for (const d of dirs) if (existsSync(d)) chmodSync(d, 0o755);
    }
  }
  // A child as nobody, running this module through tsx's loader (the same source as the test).
  const module = pathToFileURL(join(import.meta.dirname, 'data-dir.ts')).href;
  const script = `
    const { prepareDataDir } = await import(${JSON.stringify(module)});
    const out = [];
    for (const d of ${JSON.stringify(dirs)}) {
      try { prepareDataDir(d); out.push('ok'); } catch (e) { out.push({ code: e.code, message: e.message }); }
    }
    console.log(JSON.stringify(out));`;
  const tsx = join(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(tsx).href, '--input-type=module', '-e', script], {
    uid: 65534,
    gid: 65534,
    encoding: 'utf8',
    cwd: '/',
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown[];
}
