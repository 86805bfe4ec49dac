import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMULATOR_BIN } from '../servers/targets.js';

/** Facts about the machine and the software under test, for the report. */

export interface MachineFacts {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  readonly node: string;
  readonly tabletopCommit: string;
  /** The commit of the checkout whose build tabletop-base runs (--base-dist), when it runs. */
  readonly baseCommit?: string;
  readonly emulator: string;
  readonly nodeClient: string;
  readonly grpcJs: string;
}

export function machineFacts(repoRoot: string, baseDist?: string): MachineFacts {
  return {
    ...(baseDist === undefined ? {} : { baseCommit: gitCommit(path.dirname(baseDist)) }),
    cpuModel: cpuModel(),
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    tabletopCommit: gitCommit(repoRoot),
    emulator: emulatorVersion(),
    nodeClient: `@google-cloud/bigtable ${packageVersion(repoRoot, '@google-cloud/bigtable')}`,
    grpcJs: `@grpc/grpc-js ${packageVersion(repoRoot, '@grpc/grpc-js')}`,
  };
}

function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1] !== undefined) return m[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function gitCommit(repoRoot: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const untracked = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', 'src'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty === '' && untracked === '' ? head : `${head} with uncommitted changes in src/`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function emulatorVersion(): string {
  // cbtemulator has no version flag; the Cloud SDK it ships with does.
  const sdkVersion = path.resolve(path.dirname(EMULATOR_BIN), '..', '..', 'VERSION');
  const v = existsSync(sdkVersion) ? readFileSync(sdkVersion, 'utf8').trim() : 'unknown';
  return `cbtemulator from Google Cloud SDK ${v} (${EMULATOR_BIN})`;
}

function packageVersion(repoRoot: string, name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
