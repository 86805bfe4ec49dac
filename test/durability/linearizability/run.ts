import type { Bigtable, Table } from '@google-cloud/bigtable';
import { Random } from '../../../src/testing/random.js';
import { nodeClient } from '../../harness/node-client.js';
import { type DurableServer, startDurable } from '../durable-server.js';
import { type CheckResult, type Operation, checkLinearizable } from './checker.js';
import { ROW_MODEL, type RowInput, type RowOutput, type RowState, describeRowOp } from './row-model.js';

/**
 * A Jepsen-style run against a real server: `workers` clients (the official
 * Node client) run reads, writes, CheckAndMutateRow and ReadModifyWriteRow
 * on a few hot rows while the server is killed with SIGKILL and restarted on
 * its data directory; each operation's call, return and answer is recorded,
 * and each row's history is checked for linearizability (checker.ts). A
 * mutation that failed (the server died under it, or was down) has an
 * unknown outcome; a read that failed is dropped.
 */
export interface RunOptions {
  readonly dataDir: string;
  readonly seed: number;
  readonly seconds: number;
  readonly workers: number;
  readonly rows: number;
  /**
   * Every this many seconds the workers move to new rows (a generation), so that each row's history stays small
   * enough to check (the search's memo holds a bitset of the row's operations per configuration).
   */
  readonly rowSeconds: number;
  /** The server is killed at random every this many ms, give or take half (0: never). */
  readonly killEveryMillis: number;
  /** Progress lines (kills, operations so far). */
  readonly progress?: (line: string) => void;
}

export interface RowReport {
  readonly row: string;
  readonly ops: number;
  readonly unknown: number;
  readonly result: CheckResult<RowState, RowInput, RowOutput>;
  /** When not linearizable: the operations around where the search got stuck, in words. */
  readonly explanation?: string;
}

export interface RunReport {
  readonly kills: number;
  readonly ops: number;
  readonly unknown: number;
  readonly readsDropped: number;
  readonly rows: readonly RowReport[];
  readonly checkMillis: number;
}

const FAMILY = 'cf';
/** Every value cell is written at this timestamp, so a write replaces the row's one cell of cf:v. */
const VALUE_TIME = new Date(1);

export async function runLinearizability(options: RunOptions): Promise<RunReport> {
  const random = new Random(options.seed);
  const histories = new Map<string, Operation<RowInput, RowOutput>[]>();
  const started = performance.now();
  /** The rows of the current generation. */
  const rowKeys = (): string[] => {
    const gen = Math.floor((performance.now() - started) / (options.rowSeconds * 1000));
    return Array.from({ length: options.rows }, (_, i) => `g${String(gen).padStart(4, '0')}-hot-${i}`);
  };
  let server: DurableServer = await startDurable({ dataDir: options.dataDir });
  let client: Bigtable = nodeClient(server);
  const tableOf = (c: Bigtable): Table => {
    const t = c.instance('i').table('t');
    // Each call shows the server's answer: no retries by the client.
    (t as unknown as { maxRetries: number }).maxRetries = 0;
    return t;
  };
  let table = tableOf(client);
  await table.create({ families: [FAMILY] });
  // While the server is down, workers wait here instead of piling up failed calls of unknown outcome.
  let up: Promise<void> = Promise.resolve();
  let kills = 0;
  let readsDropped = 0;
  let stop = false;
  const until = performance.now() + options.seconds * 1000;

  const worker = async (id: number): Promise<void> => {
    const rnd = new Random(options.seed * 1000 + id + 1);
    let n = 0;
    const seen = new Map<string, string>();
    while (!stop && performance.now() < until) {
      await up;
      const key = rnd.pick(rowKeys());
      const t = table;
      const r = rnd.next();
      const value = `w${String(id).padStart(2, '0')}-${String(n++).padStart(6, '0')}`;
      const input: RowInput =
        r < 0.35
          ? { kind: 'read' }
          : r < 0.6
            ? { kind: 'write', value }
            : r < 0.8 && seen.has(key)
              ? { kind: 'cas', expected: seen.get(key)!, value }
              : { kind: 'incr' };
      const call = performance.now();
      let output: RowOutput | undefined;
      try {
        output = await perform(t, key, input);
      } catch {
        output = undefined;
      }
      const ret = performance.now();
      if (output === undefined && input.kind === 'read') readsDropped++;
      else {
        let history = histories.get(key);
        if (history === undefined) histories.set(key, (history = []));
        history.push({ input, output, call, ret: output === undefined ? Infinity : ret, client: id });
      }
      if (output?.kind === 'read' && output.v !== null) seen.set(key, output.v);
      if (output?.kind === 'write' && input.kind === 'write') seen.set(key, input.value);
      if (output === undefined) await new Promise((res) => setTimeout(res, 20));
    }
  };

  const killer = async (): Promise<void> => {
    if (options.killEveryMillis <= 0) return;
    for (;;) {
      const wait = options.killEveryMillis * (0.5 + random.next());
      if (performance.now() + wait >= until) return;
      await new Promise((res) => setTimeout(res, wait));
      let restarted!: () => void;
      up = new Promise((res) => (restarted = res));
      await server.kill9();
      kills++;
      void client.close();
      server = await startDurable({ dataDir: options.dataDir });
      client = nodeClient(server);
      table = tableOf(client);
      restarted();
      options.progress?.(`kill ${kills}: restarted; ${[...histories.values()].reduce((s, h) => s + h.length, 0)} operations so far`);
    }
  };

  try {
    await Promise.all([killer(), ...Array.from({ length: options.workers }, (_, i) => worker(i))]);
  } finally {
    stop = true;
    void client.close();
    await server.stop();
  }

  const began = performance.now();
  const rows: RowReport[] = [];
  for (const [row, history] of histories) {
    const result = checkLinearizable(ROW_MODEL, history);
    rows.push({
      row,
      ops: history.length,
      unknown: history.filter((o) => o.output === undefined).length,
      result,
      ...(result.linearizable ? {} : { explanation: explain(history, result) }),
    });
  }
  const ops = rows.reduce((s, r) => s + r.ops, 0);
  return { kills, ops, unknown: rows.reduce((s, r) => s + r.unknown, 0), readsDropped, rows, checkMillis: performance.now() - began };
}

async function perform(table: Table, key: string, input: RowInput): Promise<RowOutput> {
  const row = table.row(key);
  switch (input.kind) {
    case 'read': {
      const [rows] = await table.getRows({ keys: [key], decode: false, filter: [{ column: { cellLimit: 1 } }] });
      const data = rows[0]?.data as Record<string, Record<string, { value: Buffer | number }[]>> | undefined;
      const v = data?.[FAMILY]?.['v']?.[0]?.value;
      // (The client hands an 8-byte cell, a counter's, as a number even when asked not to decode.)
      const c = data?.[FAMILY]?.['c']?.[0]?.value;
      return {
        kind: 'read',
        v: v === undefined ? null : Buffer.from(v as Buffer).toString('utf8'),
        c: c === undefined ? 0n : typeof c === 'number' ? BigInt(c) : Buffer.from(c).readBigInt64BE(),
      };
    }
    case 'write':
      await table.insert([{ key, data: { [FAMILY]: { v: { value: input.value, timestamp: VALUE_TIME } } } }]);
      return { kind: 'write' };
    case 'cas': {
      const [matched] = await row.filter([{ column: 'v' }, { value: input.expected }], {
        onMatch: [{ method: 'insert', data: { [FAMILY]: { v: { value: input.value, timestamp: VALUE_TIME } } } }],
      });
      return { kind: 'cas', matched: Boolean(matched) };
    }
    case 'incr': {
      const [c] = await row.increment(`${FAMILY}:c`, 1);
      if (c === null) throw new Error('ReadModifyWriteRow answered no value');
      return { kind: 'incr', c: BigInt(c) };
    }
  }
}

/** The last operations the search could linearize and the ones it could not place after them, in words. */
function explain(history: readonly Operation<RowInput, RowOutput>[], result: CheckResult<RowState, RowInput, RowOutput>): string {
  if (result.gaveUp) return `gave up after ${result.explored} configurations`;
  const done = result.longest?.ops ?? [];
  const placed = new Set(done);
  const last = done.at(-1);
  const pending = history
    .filter((o) => !placed.has(o) && (last === undefined || o.call <= (Number.isFinite(last.ret) ? last.ret : last.call) + 50))
    .sort((a, b) => a.call - b.call)
    .slice(0, 12);
  const fmt = (o: Operation<RowInput, RowOutput>): string =>
    `  [client ${o.client}] ${o.call.toFixed(1)}..${Number.isFinite(o.ret) ? o.ret.toFixed(1) : '?'} ms: ${describeRowOp(o.input, o.output)}`;
  return [
    `linearized ${done.length} of ${history.length}, then stuck in state v=${result.longest?.state.v ?? '∅'} c=${result.longest?.state.c ?? 0n}`,
    'last linearized:',
    ...done.slice(-8).map(fmt),
    'not placeable after them:',
    ...pending.map(fmt),
  ].join('\n');
}
