import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageDefinition } from '../../src/server/testing/loader-protos.js';
import { status } from '../harness/grpc-errors.js';
import { INSTANCE, PROJECT } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

/**
 * gRPC C-core (through Python's grpcio, Debian's python3-grpcio; npm test
 * installs it) against tabletop: a third HTTP/2 implementation besides
 * nghttp2 (the Node client) and Go's (cbt), with its own flow-control
 * windows, BDP pings and HPACK encoder. The calls are sent as serialized
 * protobuf, so no generated Python code is needed: a 2 MB MutateRows upload,
 * multiplexed unary calls from 8 threads on one connection, a streamed
 * ReadRows of several MB, and an error status.
 */

const PYTHON = process.env['PYTHON_GRPC'] ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('calls.py', import.meta.url));
const DATA = 'google.bigtable.v2.Bigtable';

type Codec = { requestSerialize(r: object): Buffer; responseDeserialize(b: Buffer): Record<string, unknown> };
const def = packageDefinition();
const method = (name: string): Codec => (def[DATA] as unknown as Record<string, Codec>)[name]!;

interface PlannedCall {
  readonly kind: 'unary' | 'stream';
  readonly method: string;
  readonly request: object;
  readonly repeat?: number;
  readonly threads?: number;
}
type CallResult = { ok: true; responses: Record<string, unknown>[][] } | { ok: false; code: number; details: string };

/** Runs the calls through calls.py and decodes the responses. */
async function python(target: string, calls: PlannedCall[]): Promise<CallResult[]> {
  const plan = {
    target,
    calls: calls.map((c) => ({
      kind: c.kind,
      path: `/${DATA}/${c.method}`,
      request: method(c.method).requestSerialize(c.request).toString('base64'),
      repeat: c.repeat ?? 1,
      threads: c.threads ?? 1,
    })),
  };
  const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // A child that exits before reading its plan (no grpc module) closes the pipe: its exit code says why, not an EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(plan));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) {
    const hint = stderr.includes("No module named 'grpc'")
      ? ` (${PYTHON} has no grpc module: install Debian's python3-grpcio, as npm test does (scripts/test-prerequisites.sh), or set PYTHON_GRPC)`
      : '';
    throw new Error(`calls.py exited with ${code}${hint}:\n${stderr.slice(-2000)}`);
  }
  const raw = JSON.parse(stdout) as ({ ok: true; responses: string[][] } | { ok: false; code: number; details: string })[];
  return raw.map((r, i) =>
    r.ok
      ? {
          ok: true,
          responses: r.responses.map((rep) => rep.map((m) => method(calls[i]!.method).responseDeserialize(Buffer.from(m, 'base64')))),
        }
      : r,
  );
}

describe.each(selectedTargets())('gRPC C-core (Python grpcio) client (%s)', (kind) => {
  const ctx = useTarget(kind);

  it('uploads, multiplexes, streams and reports errors through C-core HTTP/2', async () => {
    const id = uniqueTableId('py');
    await ctx.instance.table(id).create({ families: ['cf'] });
    const tableName = `projects/${PROJECT}/instances/${INSTANCE}/tables/${id}`;
    const rows = 2000;
    const value = (i: number): Buffer => Buffer.alloc(1024, i % 251);
    const key = (i: number): Buffer => Buffer.from(`row${String(i).padStart(5, '0')}`);
    const set = (i: number) => ({
      setCell: { familyName: 'cf', columnQualifier: Buffer.from('v'), timestampMicros: 1000, value: value(i) },
    });

    const results = await python(ctx.target.address, [
      // One request of ~2 MB: C-core sends it through our receive windows.
      { kind: 'unary', method: 'PingAndWarm', request: { name: `projects/${PROJECT}/instances/${INSTANCE}` } },
      {
        kind: 'stream',
        method: 'MutateRows',
        request: { tableName, entries: Array.from({ length: rows }, (_, i) => ({ rowKey: key(i), mutations: [set(i)] })) },
      },
      // 64 increments of one row from 8 threads on one connection.
      {
        kind: 'unary',
        method: 'ReadModifyWriteRow',
        request: {
          tableName,
          rowKey: Buffer.from('counter'),
          rules: [{ familyName: 'cf', columnQualifier: Buffer.from('n'), incrementAmount: 1 }],
        },
        repeat: 64,
        threads: 8,
      },
      // The whole table, ~2 MB streamed to C-core's windows, twice at once (the latest cell of each
      // column: the increments left versions, as many as they had distinct timestamps).
      { kind: 'stream', method: 'ReadRows', request: { tableName, filter: { cellsPerColumnLimitFilter: 1 } }, repeat: 2, threads: 2 },
      { kind: 'stream', method: 'ReadRows', request: { tableName: `${tableName}-missing` } },
    ]);

    expect(results[0]!.ok).toBe(true);
    const mutate = results[1]!;
    if (!mutate.ok) throw new Error(`MutateRows failed: ${mutate.details}`);
    const entries = mutate.responses[0]!.flatMap((m) => m['entries'] as { status?: { code?: number } }[]);
    expect(entries).toHaveLength(rows);
    expect(entries.every((e) => (e.status?.code ?? 0) === 0)).toBe(true);

    const rmw = results[2]!;
    if (!rmw.ok) throw new Error(`ReadModifyWriteRow failed: ${rmw.details}`);
    const counts = rmw.responses.map((r) => {
      const cell = (r[0]!['row'] as { families: { columns: { cells: { value: Buffer }[] }[] }[] }).families[0]!.columns[0]!.cells[0]!.value;
      return Number(Buffer.from(cell).readBigInt64BE());
    });
    // Every increment was applied once: the 64 results are 1..64 in some order.
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));

    const scans = results[3]!;
    if (!scans.ok) throw new Error(`ReadRows failed: ${scans.details}`);
    for (const messages of scans.responses) {
      const chunks = messages.flatMap((m) => m['chunks'] as { rowKey?: Buffer; value?: Buffer; commitRow?: boolean }[]);
      const committed = chunks.filter((c) => c.commitRow === true).length;
      expect(committed).toBe(rows + 1); // the data rows and the counter
      const bytes = chunks.reduce((n, c) => n + (c.value?.length ?? 0), 0);
      expect(bytes).toBe(rows * 1024 + 8);
    }

    const missing = results[4]!;
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.code).toBe(status.NOT_FOUND);
  }, 120_000);
});
