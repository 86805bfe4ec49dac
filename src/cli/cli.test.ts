import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../index.js';
import { rawClients, unaryCall } from '../server/testing/raw-client.js';
import { runCli } from './cli.js';
import { defaultBackgroundThreads } from './serve-settings.js';

import { testIo } from './testing/test-io.js';

const THREADS = defaultBackgroundThreads();
/** How the Storage line says who builds SSTables, with the default --background-threads of this machine. */
const BUILT_BY = THREADS === 0 ? 'built on the serving thread' : `built by ${THREADS} background thread${THREADS === 1 ? '' : 's'}`;

const io = testIo;

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const scratch = (): string => mkdtempSync(join(tmpdir(), 'tabletop-cli-'));

/** Runs `serve` with `args` until it prints its export line, then stops it with SIGTERM; returns what it wrote. */
async function serveOnce(
  args: readonly string[],
  env?: Record<string, string>,
  whileUp?: (address: string) => Promise<void>,
): Promise<{ out: string[]; err: string[]; code: number }> {
  const t = io(undefined, env);
  const done = runCli(['serve', ...args], t.cli);
  let finished = false;
  void done.then(() => (finished = true));
  await until(() => finished || t.out.some((l) => l.startsWith('export ')));
  if (finished) return { out: t.out, err: t.err, code: await done };
  const address = t.out.find((l) => l.startsWith('export '))!.slice('export BIGTABLE_EMULATOR_HOST='.length);
  await whileUp?.(address);
  t.signals.emit('signal', 'SIGTERM');
  return { out: t.out, err: t.err, code: await done };
}

describe('tabletop CLI', () => {
  it('prints help for the program and each command, and the version', async () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const h = io();
      expect(await runCli(args, h.cli)).toBe(0);
      expect(h.out.join('\n')).toMatch(/Usage: tabletop \[options\] \[command\]/);
      expect(h.out.join('\n')).toMatch(/serve \[options\]\s+Serve the Cloud Bigtable APIs/);
      expect(h.out.join('\n')).toMatch(/help \[command\]\s+show help for a command/);
    }
    for (const args of [
      ['help', 'serve'],
      ['serve', '--help'],
    ]) {
      const h = io();
      expect(await runCli(args, h.cli)).toBe(0);
      const text = h.out.join('\n');
      expect(text).toContain('Usage: tabletop serve [options]');
      for (const flag of [
        '--http-port <port>',
        '--data-dir <dir>',
        '--load-split-requests <n>',
        '--hot-row-share <fraction>',
        '--log-format <format>',
        '--config <file>',
      ])
        expect(text).toContain(flag);
      expect(text).toContain('env TABLETOP_MEMTABLE_SIZE');
    }
    const tablets = io();
    expect(await runCli(['help', 'tablets'], tablets.cli)).toBe(0);
    // Required flags are not shown as optional.
    expect(tablets.out.join('\n')).toContain(
      'Usage: tabletop tablets <table> --project <project> --instance <instance> [--server <host:port>]',
    );
    const v = io();
    expect(await runCli(['--version'], v.cli)).toBe(0);
    expect(v.out).toEqual([`tabletop ${VERSION}`]);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('rejects unknown commands, flags and bad values with exit code 2', async () => {
    for (const args of [
      [],
      ['frobnicate'],
      ['serve', '--nope'],
      ['serve', '--port', 'abc'],
      ['serve', '--port', '70000'],
      ['serve', 'extra'],
      ['serve', '--split-size', 'big'],
      ['serve', '--memtable-size', '-1'],
      ['serve', '--wal-file-size', '1XB'],
      ['serve', '--commit-delay', '1.5'],
      ['serve', '--commit-delay', '101'],
      ['serve', '--nodes', '0'],
      ['serve', '--load-split-window', '200s'],
      ['serve', '--load-split-window', '30'],
      ['serve', '--hot-row-share', '1.5'],
      ['serve', '--log-level', 'loud'],
      ['serve', '--log-format', 'xml'],
      ['serve', '--host', ''],
      ['serve', '--data-dir', ''],
      ['serve', '--insight', 'maybe'],
      ['serve', '--insight'],
      ['tablets'],
      ['tablets', 't'],
    ]) {
      const t = io();
      expect([args, await runCli(args, t.cli)]).toEqual([args, 2]);
      expect(t.err.length).toBeGreaterThan(0);
    }
  });

  it('suggests the closest flag or command for a mistyped one', async () => {
    const cases: [string[], string][] = [
      [['serve', '--data-dri', 'x'], 'Did you mean --data-dir?'],
      [['serve', '--in-memroy'], 'Did you mean --in-memory?'],
      [['serve', '--nodse', '3'], 'Did you mean --nodes?'],
      [['srve'], 'Did you mean serve?'],
    ];
    for (const [args, suggestion] of cases) {
      const t = io();
      expect(await runCli(args, t.cli)).toBe(2);
      expect(t.err.join('\n')).toContain(suggestion);
      expect(t.err.join('\n')).toMatch(/^tabletop( serve)?: unknown (option|command)/);
    }
  });

  it('refuses --in-memory with --data-dir from one source; a higher source replaces a lower one', async () => {
    const t = io();
    expect(await runCli(['serve', '--in-memory', '--data-dir', scratch()], t.cli)).toBe(2);
    expect(t.err).toEqual(['tabletop serve: --in-memory and --data-dir contradict each other: keep data in memory, or in a directory']);
    const e = io(undefined, { TABLETOP_IN_MEMORY: 'true', TABLETOP_DATA_DIR: '/x' });
    expect(await runCli(['serve'], e.cli)).toBe(2);
    expect(e.err[0]).toBe(
      'tabletop serve: TABLETOP_IN_MEMORY and TABLETOP_DATA_DIR contradict each other: keep data in memory, or in a directory',
    );
    const dir = scratch();
    const r = await serveOnce(['--port', '0', '--http-port', '0', '--data-dir', dir], { TABLETOP_IN_MEMORY: '1' });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Storage: durable, in ${dir} (every acknowledged write is synced to disk; SSTables ${BUILT_BY})`);
    const m = await serveOnce(['--port', '0', '--http-port', '0', '--in-memory'], { TABLETOP_DATA_DIR: dir });
    expect(m.out).toContain('Storage: in memory (--in-memory): data is lost when the server stops.');
  });

  it('serves on free ports, prints the export and HTTP lines, and stops cleanly on a signal', async () => {
    const t = io();
    const dataDir = scratch();
    const done = runCli(['serve', '--port', '0', '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], t.cli);
    await until(() => t.out.some((l) => l.startsWith('export ')));
    const exportLine = t.out.find((l) => l.startsWith('export '))!;
    expect(exportLine).toMatch(/^export BIGTABLE_EMULATOR_HOST=127\.0\.0\.1:\d+$/);
    const address = exportLine.slice('export BIGTABLE_EMULATOR_HOST='.length);
    const httpLine = t.out.find((l) => l.startsWith('HTTP: '))!;
    expect(httpLine).toMatch(/^HTTP: http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(t.out).toContain(`Storage: durable, in ${dataDir} (every acknowledged write is synced to disk; SSTables ${BUILT_BY})`);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['CURRENT', 'LOCK', 'wal', 'sst']));
    // Loopback: no warning about the network.
    expect(t.err.join('\n')).not.toContain('not loopback');

    const clients = rawClients(address);
    await expect(
      unaryCall(clients.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 't', table: {} }),
    ).resolves.toMatchObject({ name: 'projects/p/instances/i/tables/t' });
    clients.close();
    const health = await fetch(new URL('healthz', httpLine.slice('HTTP: '.length)));
    expect(await health.text()).toBe('ok\n');

    t.signals.emit('signal', 'SIGTERM');
    expect(await done).toBe(0);
    expect(t.exits).toEqual([]);
    // Released: the kernel's lock with the descriptor, and the pid with it.
    expect(readFileSync(join(dataDir, 'LOCK'), 'utf8')).toBe('');
    // The port is released.
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(Number(address.split(':')[1]), '127.0.0.1', resolve));
    probe.close();
  });

  it('says so when --in-memory is asked', async () => {
    const r = await serveOnce(['--port', '0', '--http-port', '0', '--in-memory']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Storage: in memory (--in-memory): data is lost when the server stops.');
  });

  it('warns that a server bound beyond loopback is open to the network', async () => {
    const r = await serveOnce(['--port', '0', '--http-port', '0', '--in-memory', '--host', '0.0.0.0', '--insecure']);
    expect(r.code).toBe(0);
    expect(r.err.filter((l) => l.includes('WARN'))).toEqual([
      expect.stringMatching(
        /WARN {2}listening on 0\.0\.0\.0, which is not loopback: anyone who can reach ports \d+ and \d+ can read, change and delete all data, because authentication is off/,
      ),
    ]);
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const blocker = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      blocker.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const t = io();
      const dataDir = scratch();
      expect(await runCli(['serve', '--port', String(port), '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], t.cli)).toBe(
        1,
      );
      expect(readFileSync(join(dataDir, 'LOCK'), 'utf8')).toBe('');
      expect(t.err.join('\n')).toMatch(/could not start on 127\.0\.0\.1 \(gRPC port \d+, HTTP port 0\)/);
    } finally {
      blocker.forceShutdown();
    }
  });
});

describe('tabletop serve: bad data directories', () => {
  /** The port is taken: a data directory checked after the ports were opened would report the port instead. */
  async function withTakenPort(run: (port: number) => Promise<void>): Promise<void> {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      await run((blocker.address() as net.AddressInfo).port);
    } finally {
      blocker.close();
    }
  }

  it('reports a file, an uncreatable path, and a file on the way, before opening any port, and returns at once', async () => {
    const root = scratch();
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    await withTakenPort(async (port) => {
      const cases: [string, string][] = [
        [file, `the server did not start: data directory ${file} is a file, not a directory`],
        [
          join(file, 'data'),
          `the server did not start: cannot create data directory ${join(file, 'data')}: ${file} is a file, not a directory`,
        ],
        [
          '/proc/tabletop-data',
          'the server did not start: cannot create data directory /proc/tabletop-data: directories cannot be created in /proc',
        ],
      ];
      for (const [dir, message] of cases) {
        const t = io();
        const began = Date.now();
        expect(await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--http-port', '0', '--data-dir', dir], t.cli)).toBe(
          1,
        );
        expect(Date.now() - began).toBeLessThan(5000);
        expect(t.err).toEqual([expect.stringMatching(new RegExp(`ERROR {1}${escape(message)}$`))]);
        expect(t.out).toEqual([]);
      }
    });
  });

  it('reports a directory it may not write in, with its owner and mode', async () => {
    const root = scratch();
    const locked = join(root, 'locked');
    mkdirSync(locked);
    chmodSync(root, 0o755);
    chmodSync(locked, 0o755);
    // As `nobody` when the tests run as root (root may write anywhere); otherwise as ourselves on a read-only directory.
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) chmodSync(locked, 0o555);
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, '../../dist/cli/main.js'), 'serve', '--port', '0', '--http-port', '0', '--data-dir', locked],
      {
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        cwd: '/',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out }).toEqual({ code: 1, out: '' });
    expect(err).toMatch(
      new RegExp(
        `ERROR {1}the server did not start: no permission to read and write in data directory ${escape(locked)}: ${escape(locked)} is owned by uid \\d+, mode 0[57]55; tabletop runs as uid \\d+\\n$`,
      ),
    );
  });
});

describe('tabletop serve: config file and environment', () => {
  it('takes every setting from a TOML or JSON file; the environment and the command line win over it', async () => {
    const root = scratch();
    const dataDir = join(root, 'data');
    const toml = join(root, 'tabletop.toml');
    writeFileSync(
      toml,
      [
        '# tabletop settings',
        'port = 0',
        'http-port = 0',
        `data-dir = "${dataDir}"`,
        'split-size = "1MiB"',
        'log-format = "json"',
        'log-level = "info"',
        'load-split-window = "5s"',
      ].join('\n'),
    );
    const fromFile = await serveOnce(['--config', toml]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.out).toContain(`Storage: durable, in ${dataDir} (every acknowledged write is synced to disk; SSTables ${BUILT_BY})`);
    const records = fromFile.err.map((l) => JSON.parse(l) as { level: string; msg: string; event?: string });
    expect(records.map((r) => r.event)).toEqual(expect.arrayContaining(['recovered', 'started', 'stopping', 'stopped']));
    expect(records.every((r) => r.level === 'info')).toBe(true);

    // The environment names the file and overrides its format; the command line overrides the environment.
    const fromEnv = await serveOnce([], { TABLETOP_CONFIG: toml, TABLETOP_LOG_FORMAT: 'text' });
    expect(fromEnv.err[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}opened .* no tables yet$/);
    const fromCli = await serveOnce(['--log-format', 'json', '--log-level', 'warn'], {
      TABLETOP_CONFIG: toml,
      TABLETOP_LOG_FORMAT: 'text',
    });
    expect(fromCli.code).toBe(0);
    expect(fromCli.err).toEqual([]);

    const json = join(root, 'tabletop.json');
    writeFileSync(json, JSON.stringify({ port: 0, 'http-port': 0, 'in-memory': true, nodes: 5, 'log-level': 'silent' }));
    const fromJson = await serveOnce(['--config', json]);
    expect(fromJson.out).toContain('Storage: in memory (--in-memory): data is lost when the server stops.');
    expect(fromJson.err).toEqual([]);
  });

  it('names the file, the key and the closest real key when a config file is wrong', async () => {
    const root = scratch();
    const write = (name: string, text: string): string => {
      const p = join(root, name);
      writeFileSync(p, text);
      return p;
    };
    const cases: [string, RegExp][] = [
      [
        write('a.toml', 'data-dri = "x"'),
        /^tabletop serve: config file .*a\.toml: unknown setting "data-dri" \(did you mean "data-dir"\?\)/,
      ],
      [write('b.toml', 'port = "eighty"'), /^tabletop serve: port in .*b\.toml: must be a port number from 0 to 65535 \(got "eighty"\)$/],
      [
        write('c.toml', 'port = 80\nport = 81'),
        /^tabletop serve: config file .*c\.toml: Invalid TOML document: trying to redefine an already defined table or value\n\n1: {2}port = 80\n2: {2}port = 81/,
      ],
      [write('d.yaml', 'port: 80'), /^tabletop serve: config file .*d\.yaml: the name must end in \.toml or \.json/],
      [write('e.json', '{"split-size": "huge"}'), /^tabletop serve: split-size in .*e\.json: must be a size such as/],
      [write('f.toml', '[serve]\nport = 1'), /^tabletop serve: config file .*f\.toml: unknown setting "serve"/],
      [
        write('g.toml', 'in-memory = true\ndata-dir = "x"'),
        /^tabletop serve: in-memory in .*g\.toml and data-dir in .*g\.toml contradict each other/,
      ],
      [join(root, 'missing.toml'), /^tabletop serve: config file .*missing\.toml: cannot read it: ENOENT$/],
    ];
    for (const [file, message] of cases) {
      const t = io();
      expect(await runCli(['serve', '--config', file], t.cli)).toBe(2);
      expect(t.err).toEqual([expect.stringMatching(message)]);
    }
    const e = io(undefined, { TABLETOP_NODES: 'many' });
    expect(await runCli(['serve'], e.cli)).toBe(2);
    expect(e.err).toEqual(['tabletop serve: TABLETOP_NODES: must be a whole number from 1 to 1000 (got "many")']);
  });
});

describe('tabletop serve: logs', () => {
  it('logs recovery with what was replayed, at info, in JSON for machines; --log-level warn keeps only warnings', async () => {
    const dataDir = scratch();
    const first = await serveOnce(
      // Recording off: its own store (_insight) would add to the stores and rows recovered.
      ['--port', '0', '--http-port', '0', '--data-dir', dataDir, '--log-format', 'json', '--insight', 'off'],
      undefined,
      async (address) => {
        const clients = rawClients(address);
        await unaryCall(clients.tableAdmin, 'CreateTable', {
          parent: 'projects/p/instances/i',
          tableId: 't',
          table: { columnFamilies: { cf: {} } },
        });
        for (let i = 0; i < 20; i++) {
          await unaryCall(clients.data, 'MutateRow', {
            tableName: 'projects/p/instances/i/tables/t',
            rowKey: Buffer.from(`r${i}`),
            mutations: [
              { setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: 1000, value: Buffer.from('v') } },
            ],
          });
        }
        clients.close();
      },
    );
    expect(first.code).toBe(0);
    const started = JSON.parse(first.err.find((l) => l.includes('"started"'))!) as Record<string, unknown>;
    expect(started).toMatchObject({
      level: 'info',
      event: 'started',
      version: VERSION,
      storage: 'disk',
      dataDir,
      millis: expect.any(Number),
      pid: process.pid,
      time: expect.stringMatching(/^\d{4}-/),
    });
    // The memtable was not flushed at stop: the next start replays the commit log and flushes it.
    const second = await serveOnce(['--port', '0', '--http-port', '0', '--data-dir', dataDir, '--log-format', 'json', '--insight', 'off']);
    const records = second.err.map((l) => JSON.parse(l) as Record<string, unknown>);
    const recovered = records.find((r) => r.event === 'recovered');
    expect(recovered).toMatchObject({
      level: 'info',
      dataDir,
      rowsReplayed: 20,
      storesFlushed: 1,
      stores: 1,
      logFiles: expect.any(Number),
      millis: expect.any(Number),
    });
    expect(recovered!.msg).toMatch(
      /^recovered .* in \d+ ms: 1 tablet, 0 SSTables \(0 B\); replayed \d+ commit-log files? \([\d.]+ KiB, \d+ records: 20 rows not yet in SSTables\), then flushed 1 tablet$/,
    );
    const flushed = records.find((r) => r.event === 'flushed');
    expect(flushed).toMatchObject({ level: 'info', reason: 'recovery', entries: 20, fileBytes: expect.any(Number) });
    expect(flushed!.msg).toMatch(/^flushed tablet \S+ \(recovery\): /);
    const quiet = await serveOnce(['--port', '0', '--http-port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
    expect(quiet.err).toEqual([]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
