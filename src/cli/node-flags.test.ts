import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { SERVER_NODE_FLAGS, missingServerFlags } from './node-flags.js';
import { testIo } from './testing/test-io.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BUILT_MAIN = join(REPO, 'dist', 'cli', 'main.js');

describe('the server process starts with SERVER_NODE_FLAGS', () => {
  it('recognises an option however it is spelled, and reports only the missing ones', () => {
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    expect(missingServerFlags([])).toEqual([...SERVER_NODE_FLAGS]);
    expect(missingServerFlags(['--initial-old-space-size=128'])).toEqual([]);
    expect(missingServerFlags(['--initial_old_space_size=128', '--trace-gc'])).toEqual([]);
    expect(missingServerFlags(['--max-old-space-size=64', '--cpu-prof'])).toEqual(['--initial-old-space-size=128']);
  });

  it("the executable's first line and `npm start` pass exactly those flags", () => {
    const want = `#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`;
    expect(readFileSync(join(REPO, 'src', 'cli', 'main.ts'), 'utf8').split('\n')[0]).toBe(want);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    expect(pkg.scripts['start']).toBe(`node ${SERVER_NODE_FLAGS.join(' ')} ${pkg.bin['tabletop']} serve`);
  });

  it('running the built executable directly gives node the flags (no note on stderr)', async () => {
    if (!existsSync(BUILT_MAIN)) throw new Error(`tabletop is not built: ${BUILT_MAIN} does not exist (run \`npm run build\`)`);
    const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-flags-'));
    try {
      const child = spawn(BUILT_MAIN, ['serve', '--port', '0', '--http-port', '0', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const deadline = Date.now() + 20_000;
      while (!out.includes('export BIGTABLE_EMULATOR_HOST=') && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 20));
      expect(out).toContain('export BIGTABLE_EMULATOR_HOST=');
      const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      for (const f of SERVER_NODE_FLAGS) expect(cmdline).toContain(f);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(err).not.toContain('node was started without');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('`serve` names missing flags for the durable engine only', async () => {
    const run = async (args: string[], execArgv: readonly string[]): Promise<string[]> => {
      const { cli, out, err, signals } = testIo(execArgv);
      const done = runCli(['serve', '--port', '0', '--http-port', '0', ...args], cli);
      while (!out.some((l) => l.startsWith('export '))) await new Promise((r) => setTimeout(r, 10));
      signals.emit('signal', 'SIGTERM');
      expect(await done).toBe(0);
      return err.filter((l) => l.includes('WARN  node was started without'));
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-flags-'));
    try {
      const notes = await run(['--data-dir', dataDir], []);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(`node ${SERVER_NODE_FLAGS.join(' ')} dist/cli/main.js serve`);
      expect(await run(['--data-dir', dataDir], [...SERVER_NODE_FLAGS])).toEqual([]);
      expect(await run(['--in-memory'], [])).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
