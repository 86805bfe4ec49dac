import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, REPO_ROOT, waitForOutput } from '../harness/targets.js';
import { spawnGuarded, stopGuarded, type GuardedChild } from '../harness/guarded-child.js';
import { nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { SERVER_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { readRuntimeStage } from './dockerfile.js';
import { cleanEnv, INSTALL_FLAGS, npm, packCheckout, re2Mirror, type Packed } from './scratch-install.js';

/**
 * The package as users get it: `npm pack` of the checkout (dist/ built by the
 * package's own `prepare`), installed globally (`npm install -g`, here with
 * --prefix into a scratch directory) and as a test runner's dev dependency,
 * each then answering the official client. Install commands are the README's.
 * Timings on 2 cores, npm's cache warm from `npm ci`: pack 3 s, the two
 * installs side by side 18 s, the file 30 s. Without re2's mirror (see
 * re2Mirror) one install took 2 min 52 s, compiling re2.
 */

const SETUP_TIMEOUT_MS = 10 * 60_000; // a re2 compile (no mirror: see re2Mirror) takes minutes

let work: string;
let packed: Packed;
let globalPrefix: string;
let globalBin: string;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'tabletop-packaging-'));
  const started = Date.now();
  packed = await packCheckout(work);
  const packedAt = Date.now();
  const deps =
    (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ??
    {};
  const env = cleanEnv(re2Mirror(path.join(work, 're2-mirror'), deps['re2']));
  globalPrefix = path.join(work, 'global');
  globalBin = path.join(globalPrefix, 'bin');
  project = path.join(work, 'project');
  await Promise.all([
    // README: npm install -g tabletopdb --allow-scripts=re2
    npm(['install', '-g', '--prefix', globalPrefix, '--allow-scripts=re2', ...INSTALL_FLAGS, packed.tarball], work, env),
    installDevDependency(project, packed.tarball, env),
  ]);
  console.log(
    `packaging: npm pack ${((packedAt - started) / 1000).toFixed(1)} s, both installs ${((Date.now() - packedAt) / 1000).toFixed(1)} s`,
  );
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** README: a project with `"allowScripts": { "re2": true }` runs `npm install --save-dev tabletopdb`. */
async function installDevDependency(dir: string, tarball: string, env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module', allowScripts: { re2: true } }, null, 2),
  );
  await npm(['install', '--save-dev', ...INSTALL_FLAGS, tarball], dir, env);
}

describe('the tarball', () => {
  it('holds the compiled package and nothing else of the checkout', () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(packed.name).toBe('tabletopdb');
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'dist/ui/index.html',
        'dist/keys/index.js',
        'dist/keys/index.d.ts',
      ]),
    );
    // The web UI's build (dist/ui: its shell and hashed assets) ships beside the compiled code.
    const stray = paths.filter(
      (p) =>
        !['LICENSE', 'README.md', 'package.json'].includes(p) &&
        !/^dist\/.+(?<!\.d)\.js$|^dist\/.+\.d\.ts$|^dist\/ui\/(index\.html|assets\/[^/]+\.css)$/.test(p),
    );
    expect(stray).toEqual([]);
    expect(paths.filter((p) => /\.test\.|\.bench\.|\/testing\//.test(p))).toEqual([]);
  });

  it('has an executable bin', () => {
    const bin = packed.files.find((f) => f.path === 'dist/cli/main.js');
    expect((bin?.mode ?? 0) & 0o111).toBe(0o111);
  });

  it('holds every module its modules import', () => {
    const inTarball = new Set(packed.files.map((f) => f.path));
    const missing: string[] = [];
    for (const file of inTarball) {
      if (!file.endsWith('.js')) continue;
      const text = readFileSync(path.join(project, 'node_modules', 'tabletopdb', file), 'utf8');
      for (const m of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = path.posix.join(path.posix.dirname(file), m[1] ?? '');
        if (!inTarball.has(target)) missing.push(`${file} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** The environment of a shell after `npm install -g`: the global bin directory on PATH. */
const globalEnv = (): NodeJS.ProcessEnv => cleanEnv({ PATH: `${globalBin}${path.delimiter}${process.env['PATH'] ?? ''}` });

describe('npm install -g', () => {
  const env = globalEnv;

  it('puts `tabletop` on PATH', () => {
    const stdout = execFileSync('tabletop', ['--version'], { env: env(), encoding: 'utf8' });
    expect(stdout.trim()).toBe(`tabletop ${packed.version}`);
  });

  it('`tabletop serve --in-memory` answers the official client, regular-expression filters (re2) included, /healthz and the web UI', async () => {
    const server = await serve(['serve', '--in-memory', '--port', '0', '--http-port', '0'], env());
    try {
      await expectRealCalls(server.address);
      const health = await fetch(`http://${server.http}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.text()).toBe('ok\n');
      // The installed package finds its dist/ui: the shell, and the script it loads.
      const shell = await (await fetch(`http://${server.http}/`)).text();
      const script = /<script type="module"[^>]* src="(\/ui\/assets\/[^"]+\.js)"/.exec(shell)?.[1];
      expect(script, shell).toBeDefined();
      expect((await fetch(`http://${server.http}${script}`)).status).toBe(200);
    } finally {
      await stopGuarded(server.child);
    }
  });

  it('starts node with the server V8 flags (serve notes their absence for a durable store)', async () => {
    const server = await serve(['serve', '--data-dir', path.join(work, 'data'), '--port', '0', '--http-port', '0'], env());
    await stopGuarded(server.child);
    expect(server.output()).toContain('Storage: durable');
    expect(server.output()).not.toContain('started without');
  });

  it("says how to get re2's native addon when its install script did not run (npm 12 without --allow-scripts=re2)", () => {
    const addon = path.join(globalPrefix, 'lib', 'node_modules', 'tabletopdb', 'node_modules', 're2', 'build', 'Release', 're2.node');
    renameSync(addon, `${addon}.away`);
    try {
      // The addon loads on the first regex; its absence is found at start, before any port opens.
      expect(spawnSync('tabletop', ['--version'], { env: env(), encoding: 'utf8' }).status).toBe(0);
      const run = spawnSync('tabletop', ['serve', '--in-memory', '--port', '0', '--http-port', '0'], {
        env: env(),
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stdout).not.toContain('gRPC:');
      expect(run.stderr).toContain("re2's native addon is missing");
      expect(run.stderr).toContain('npm install -g tabletopdb --allow-scripts=re2');
    } finally {
      renameSync(`${addon}.away`, addon);
    }
  });
});

describe('a dev dependency', () => {
  it("`import { startServer } from 'tabletopdb'` in an ES module starts a server that answers the official client", async () => {
    const script = path.join(project, 'probe.mjs');
    writeFileSync(
      script,
      [
        "import { startServer, VERSION } from 'tabletopdb';",
        'const server = await startServer();',
        "process.once('SIGTERM', () => server.stop().then(() => console.log('stopped')));",
        'console.log(`ready ${VERSION} ${server.storage} ${server.address}`);',
      ].join('\n'),
    );
    const child = spawnGuarded(process.execPath, [script], { cwd: project, env: cleanEnv() });
    const tail = capture(child);
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const m = await waitForOutput(child, tail, 'probe.mjs', /ready (\S+) (\S+) (\S+)\n/);
      expect([m[1], m[2]]).toEqual([packed.version, 'memory']);
      await expectRealCalls(m[3] ?? '');
    } finally {
      await stopGuarded(child);
    }
    expect(await exited).toBe(0);
    expect(tail.toString()).toContain('stopped');
  });

  it('comes with its types', () => {
    writeFileSync(
      path.join(project, 'typed.ts'),
      [
        "import { startServer, type RunningServer } from 'tabletopdb';",
        "import { keySchema, reversedTimestamp, string } from 'tabletopdb/keys';",
        'const server: RunningServer = await startServer({ port: 0, inMemory: true });',
        'const address: string = server.address;',
        'await server.stop();',
        "const key: string = keySchema({}, [string('sensor'), reversedTimestamp('at')]).encode({ sensor: 's', at: new Date() });",
        'export { address, key };',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
    expect(() => execFileSync(tsc, ['-p', project], { encoding: 'utf8' })).not.toThrow();
  });
});

describe('the row-key builder', () => {
  it("is the subpath export `tabletopdb/keys`, the same as the package entry's", () => {
    const script = [
      "import { keySchema, salt, string, reversedTimestamp } from 'tabletopdb/keys';",
      "const s = keySchema({}, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')]);",
      "console.log(s.encode({ sensor: 'sensor123', at: new Date('2023-05-01T12:00:00Z') }));",
      "const entry = await import('tabletopdb');",
      'console.log(entry.keySchema === keySchema);',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: cleanEnv(), encoding: 'utf8' });
    expect(out.split('\n').slice(0, 2)).toEqual(['5#sensor123#9223370353912375807', 'true']);
  });
});

describe("the Dockerfile's image, its last stage run on the same global install without Docker", () => {
  const stage = readRuntimeStage();

  it('runs as an unprivileged user with its data in the volume /data, and exposes the default ports', () => {
    expect(stage.user).toBe('node');
    expect(stage.volumes).toEqual(['/data']);
    expect(stage.cmd).toEqual(['serve', '--host', '0.0.0.0', '--insecure', '--data-dir', '/data']);
    const help = execFileSync('tabletop', ['help', 'serve'], { env: globalEnv(), encoding: 'utf8' });
    const defaults = [/--port <port>\s[^]*?\(default (\d+)/, /--http-port <port>\s[^]*?\(default (\d+)/].map((re) =>
      Number(re.exec(help)?.[1]),
    );
    expect(stage.exposed).toEqual(defaults);
  });

  it('its entrypoint (node with the server V8 flags, the installed bin) serves, and its health check tells up from down', async () => {
    // The image's /opt/tabletop is the build stage's `npm install --global --prefix /opt/tabletop`: here, globalPrefix.
    expect([...stage.copiedFromBuild.entries()]).toEqual([['/opt/tabletop', '/opt/tabletop']]);
    const local = (arg: string): string =>
      arg.replace(/^\/opt\/tabletop\//, `${globalPrefix}/`).replace(/^\/data$/, path.join(work, 'docker-data'));
    const [exe, ...args] = stage.entrypoint;
    expect(exe).toBe('node');
    expect(args.slice(0, -1)).toEqual(SERVER_NODE_FLAGS);
    expect(realpathSync(local(args.at(-1) ?? ''))).toBe(realpathSync(path.join(globalBin, 'tabletop')));
    const httpDefault = stage.exposed[1];
    const health = stage.healthcheck?.cmd ?? [];
    expect(health[0]).toBe('node');
    expect(health.join(' ')).toContain(`:${httpDefault}/healthz`);

    const server = await serve(
      [...args.map(local), ...stage.cmd.map(local), '--port', '0', '--http-port', '0'],
      cleanEnv(),
      process.execPath,
    );
    const healthcheck = (): number => {
      const port = server.http.slice(server.http.lastIndexOf(':') + 1);
      try {
        execFileSync(
          process.execPath,
          health.slice(1).map((a) => a.replace(`:${httpDefault}/`, `:${port}/`)),
          { stdio: 'ignore', timeout: 10_000 },
        );
        return 0;
      } catch (e) {
        return (e as { status?: number }).status ?? -1;
      }
    };
    try {
      expect(server.output()).toContain('Storage: durable');
      expect(server.output()).not.toContain('started without');
      await expectRealCalls(`127.0.0.1:${server.address.slice(server.address.lastIndexOf(':') + 1)}`);
      expect(healthcheck()).toBe(0);
    } finally {
      await stopGuarded(server.child);
    }
    expect(healthcheck()).toBe(1);
  });
});

interface Served {
  readonly child: GuardedChild;
  readonly address: string;
  readonly http: string;
  output(): string;
}

/** Runs the installed `tabletop` (or `command`) with `args` and waits for its address lines. */
async function serve(args: readonly string[], env: NodeJS.ProcessEnv, command = 'tabletop'): Promise<Served> {
  const child = spawnGuarded(command, args, { cwd: work, env });
  const tail = capture(child);
  try {
    const m = await waitForOutput(child, tail, 'tabletop', /HTTP: http:\/\/(\S+)\/\nexport BIGTABLE_EMULATOR_HOST=(\S+)\n/);
    return { child, http: m[1] ?? '', address: m[2] ?? '', output: () => tail.toString() };
  } catch (e) {
    await stopGuarded(child);
    throw e;
  }
}

/** Creates a table, writes two rows and reads one back through a row-key regular expression (an RE2 filter). */
async function expectRealCalls(address: string): Promise<void> {
  const bigtable = nodeClient({ address });
  try {
    const instance = bigtable.instance('i');
    const [table] = await instance.createTable(uniqueTableId('pack'), { families: ['cf'] });
    await table.insert([
      { key: 'row-1', data: { cf: { col: 'one' } } },
      { key: 'row-2', data: { cf: { col: 'two' } } },
    ]);
    const [rows] = await table.getRows({ filter: [{ row: /row-2/ }] });
    expect(rows.map((r) => [r.id, r.data['cf']?.['col']?.[0]?.value])).toEqual([['row-2', 'two']]);
  } finally {
    await bigtable.close();
  }
}
