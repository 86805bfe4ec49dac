import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../harness/targets.js';

/**
 * The checkout packed as `npm publish` would pack it, and installed from the
 * tarball the way a user installs it: npm from PATH, its cache first
 * (--prefer-offline), the registry for anything the cache lacks.
 */

const run = promisify(execFile);

/** What `npm pack --json` reports of one tarball. */
export interface Packed {
  readonly tarball: string;
  readonly name: string;
  readonly version: string;
  readonly files: readonly { readonly path: string; readonly mode: number }[];
}

/** Top-level entries of the checkout that a pack must not depend on (built or installed things, data). */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'data', '.tmp']);

/**
 * Copies the checkout (without node_modules, dist, .git) into `workDir` and
 * runs a plain `npm pack` there, so the tarball's dist/ is the one the
 * package's own lifecycle scripts build from the sources, not whatever the
 * checkout's dist/ holds (and the checkout's dist/, which other test files'
 * servers run from, is left alone). node_modules is linked for the build's
 * compiler. Returns the tarball, in `workDir`.
 */
export async function packCheckout(workDir: string): Promise<Packed> {
  const copy = path.join(workDir, 'checkout');
  cpSync(REPO_ROOT, copy, { recursive: true, filter: (src) => !NOT_COPIED.has(path.relative(REPO_ROOT, src)) });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', workDir], copy);
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    filename: string;
    name: string;
    version: string;
    files: { path: string; mode: number }[];
  }[];
  if (report === undefined) throw new Error(`npm pack reported no tarball:\n${stdout}`);
  return { tarball: path.join(workDir, report.filename), name: report.name, version: report.version, files: report.files };
}

/** Runs npm with `args` in `cwd`; rejects with npm's output when it fails. */
export async function npm(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run('npm', [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

/** Where an enclosing npm's prefixes were (the checkout, npm's own global prefix): not the scratch installs' places. */
const PREFIXES = new Set(['npm_config_prefix', 'npm_config_local_prefix', 'npm_config_global_prefix']);

/**
 * This process's environment without what an enclosing `npm test` exported
 * for its own script (npm_package_*, npm_lifecycle_*, the prefixes: they
 * describe the checkout, not the scratch project); the rest of npm's
 * configuration (npm_config_*: cache, registry, CA file...) stays.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if ((!k.startsWith('npm_') || k.startsWith('npm_config_')) && !PREFIXES.has(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Flags of every install: npm's cache first, no audit or funding requests, no progress output. */
export const INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'] as const;

/**
 * re2's install script (install-from-cache) fetches a prebuilt re2.node from
 * the project's GitHub releases, and compiles re2 with node-gyp when that
 * fails: ~2.5 minutes of two cores per install here, where GitHub is out of
 * reach. The script also takes a mirror (RE2_DOWNLOAD_MIRROR, its documented
 * way to point at another copy of the releases), and loads and tests what it
 * gets (re2's verify-build) before keeping it, else it compiles. The mirror
 * made here holds the re2.node that the checkout's own `npm ci` built: the
 * same re2 version (checked) for the same Node ABI and platform, so the
 * installs below take what a machine that reaches GitHub would download.
 * A different re2 version gets no mirror, and compiles.
 */
export function re2Mirror(dir: string, tarballRe2Version: string | undefined): NodeJS.ProcessEnv {
  const re2 = path.join(REPO_ROOT, 'node_modules', 're2');
  const built = JSON.parse(readFileSync(path.join(re2, 'package.json'), 'utf8')) as { version: string };
  if (built.version !== tarballRe2Version) return {};
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, re2Slot()), readFileSync(path.join(re2, 'build', 'Release', 're2.node')));
  return { RE2_DOWNLOAD_MIRROR: dir, RE2_DOWNLOAD_SKIP_PATH: '1', RE2_DOWNLOAD_SKIP_VER: '1' };
}

/** install-from-cache's name for this platform's artifact: linux-x64-127, linux-musl-arm64-137, darwin-arm64-127... */
function re2Slot(): string {
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  const platform = process.platform === 'linux' && glibc === undefined ? 'linux-musl' : process.platform;
  return `${platform}-${process.arch}-${process.versions.modules}`;
}
