import { spawn } from 'node:child_process';
import type { Bigtable } from '@google-cloud/bigtable';
import { TABLETOP_MAIN, REPO_ROOT } from '../harness/targets.js';
import { assembleCells, rawReadRows } from '../harness/raw.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';

/** Support for the tests of `tabletop copy`, `export` and `import`: data written and read through the official client. */

export const tablePath = (table: string): string => `projects/${PROJECT}/instances/${INSTANCE}/tables/${table}`;

/** Creates a table with a family of 3 versions (cf1) and one of unlimited versions with a max age (cf2). */
export async function createTable(client: Bigtable, table: string): Promise<void> {
  await client.instance(INSTANCE).createTable(table, {
    families: [
      { name: 'cf1', rule: { versions: 3 } },
      { name: 'cf2', rule: { age: { seconds: 86_400 * 365 * 100 } } },
    ],
  });
}

/**
 * Writes `rows` rows through MutateRows (the client's generated data client): binary row keys (a 0x00 and a 0xff
 * byte in each), up to three versions of cf1:q at fixed millisecond timestamps, a binary qualifier and value in cf2.
 */
export async function fillTable(client: Bigtable, table: string, rows: number, padding = 100): Promise<void> {
  for (let from = 0; from < rows; from += 500) {
    const entries: { rowKey: Buffer; mutations: object[] }[] = [];
    for (let i = from; i < Math.min(rows, from + 500); i++) {
      const key = Buffer.concat([Buffer.from(`row${String(i).padStart(6, '0')}`), Buffer.from([0, 0xff, i % 256])]);
      const mutations: object[] = [];
      for (let v = 0; v <= i % 3; v++)
        mutations.push({
          setCell: {
            familyName: 'cf1',
            columnQualifier: Buffer.from('q'),
            timestampMicros: String((1_000_000 + i * 10 + v) * 1000),
            value: Buffer.from(`v${v}-${'x'.repeat(padding)}-${i}`),
          },
        });
      mutations.push({
        setCell: {
          familyName: 'cf2',
          columnQualifier: Buffer.from([0x01, 0xfe, i % 7]),
          timestampMicros: '5000',
          value: Buffer.from([i % 256, 0, 0x80, 0xc3]),
        },
      });
      entries.push({ rowKey: key, mutations });
    }
    await new Promise<void>((resolve, reject) => {
      client
        .request({ client: 'BigtableClient', method: 'mutateRows', reqOpts: { tableName: tablePath(table), entries } })
        .on('data', (d: { entries?: { status?: { code?: number; message?: string } }[] }) => {
          const bad = (d.entries ?? []).find((e) => (e.status?.code ?? 0) !== 0);
          if (bad !== undefined) reject(new Error(`mutateRows: ${bad.status?.message}`));
        })
        .on('error', reject)
        .on('end', () => resolve());
    });
  }
}

/** How many cells fillTable writes for `rows` rows. */
export function cellsOf(rows: number): number {
  let n = 0;
  for (let i = 0; i < rows; i++) n += (i % 3) + 2;
  return n;
}

/** Every row of a table, each as its key (base64) and its cells "family/qualifier(base64)/timestamp/value(base64)", sorted. */
export async function readTable(client: Bigtable, table: string): Promise<Map<string, string[]>> {
  const cells = assembleCells(await rawReadRows(client, { tableName: tablePath(table) }));
  const rows = new Map<string, string[]>();
  for (const c of cells) {
    const key = c.key.toString('base64');
    let row = rows.get(key);
    if (row === undefined) rows.set(key, (row = []));
    row.push(`${c.family}/${c.qualifier.toString('base64')}/${c.timestamp}/${c.value.toString('base64')}`);
  }
  for (const row of rows.values()) row.sort();
  return rows;
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  /** stdout as bytes (an export of a binary format). */
  readonly stdoutBytes: Buffer;
  readonly stderr: string;
}

/** Runs the built `tabletop` with `args` in `cwd`; `onStderr` sees its stderr so far (progress) as it comes, and may kill it. */
export function runTabletop(
  args: readonly string[],
  options: {
    cwd?: string;
    stdin?: Buffer;
    onStderr?: (soFar: string, kill: () => void) => void;
    env?: NodeJS.ProcessEnv;
    /** Options for node itself (a heap limit). */
    nodeArgs?: readonly string[];
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), TABLETOP_MAIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, BIGTABLE_EMULATOR_HOST: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      options.onStderr?.(stderr, () => child.kill('SIGKILL'));
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const bytes = Buffer.concat(stdout);
      resolve({ code, signal, stdout: bytes.toString('utf8'), stdoutBytes: bytes, stderr });
    });
    child.stdin.end(options.stdin ?? Buffer.alloc(0));
  });
}
