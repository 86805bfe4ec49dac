import type { Bigtable, Row, Table } from '@google-cloud/bigtable';
import { codeName, codeOf } from '../harness/grpc-errors.js';
import { rawUnary } from '../harness/raw.js';
import { bound } from '../harness/rows.js';
import { type ExpectedState, ExpectedTables, type ObservedRow, type RowOp, type Step, cellValue } from './expected-state.js';
import type { Random } from '../../src/testing/random.js';

/**
 * The load of the kill -9 test, driven through the official Node client:
 * MutateRows batches (Table#insert, Table#mutate), single-row writes
 * (Row#save, and MutateRow through the client's GAPIC layer), deletes of
 * rows and of columns, DropRowRange, ReadModifyWrite increments, and the
 * creation and deletion of tables; readers check rows as they go. Every operation is
 * recorded in the ExpectedState as pending when sent and as acknowledged
 * when the client resolves, unless the load has been frozen (the server is
 * about to be killed): from then on nothing more is acknowledged, and what
 * is in flight stays pending for the verification after restart.
 */

export const KV_TABLE = 'kv';
export const COUNTER_TABLE = 'counters';
/** Two families, two columns each; both keep one version. */
export const COLUMNS = ['cf:a', 'cf:b', 'cg:c', 'cg:d'] as const;
const FAMILIES = ['cf', 'cg'] as const;
const COUNTER_COLUMN = 'n:count';

export function rowKeys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `row-${String(i).padStart(5, '0')}`);
}

export function counterKeys(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `ctr-${i}`);
}

/** Creates the two tables (the row table split in three tablets, so that several stores share the commit log). */
export async function createTables(client: Bigtable, keys: readonly string[]): Promise<void> {
  const instance = client.instance('i');
  const third = Math.floor(keys.length / 3);
  await instance.table(KV_TABLE).create({
    families: FAMILIES.map((name) => ({ name, rule: { versions: 1 } })),
    // Buffers: the client passes split keys to protobufjs as they are, and it reads a string as base64.
    splits: [keys[third] ?? 'row-1', keys[2 * third] ?? 'row-2'].map((k) => Buffer.from(k)) as unknown as string[],
  });
  await instance.table(COUNTER_TABLE).create({ families: [{ name: 'n', rule: { versions: 1 } }] });
}

export interface LoadStats {
  sent: number;
  acked: number;
  increments: number;
  /** Reads during the load whose rows were checked. */
  reads: number;
  byKind: Record<string, number>;
}

/** A row op with the timestamp its cells carry. */
export interface TimedOp extends RowOp {
  readonly tsMillis: number;
}

type Kind = 'insert' | 'save' | 'replace' | 'mutateRow' | 'deleteRow' | 'deleteCells' | 'increment' | 'dropRange' | 'admin';

const WEIGHTS: readonly [Kind, number][] = [
  ['insert', 30],
  ['save', 15],
  ['replace', 12],
  ['mutateRow', 12],
  ['deleteRow', 6],
  ['deleteCells', 8],
  ['increment', 17],
  ['dropRange', 2],
  ['admin', 1],
];

export class RunningLoad {
  private frozen = false;
  private stopping = false;
  /** Failures while the server was up, and wrong reads during the load. */
  readonly unexpected: string[] = [];
  readonly stats: LoadStats = { sent: 0, acked: 0, increments: 0, reads: 0, byKind: {} };
  private readonly workers: Promise<void>[] = [];

  constructor(
    private readonly w: CrashWorkload,
    private readonly client: Bigtable,
    private readonly cycle: number,
    concurrency: number,
    readers: number,
  ) {
    for (let i = 0; i < concurrency; i++) this.workers.push(this.worker());
    for (let i = 0; i < readers; i++) this.workers.push(this.reader());
  }

  /** Stops acknowledging and sending: call just before killing the server. */
  freeze(): void {
    this.frozen = true;
  }

  /** Stops sending, and resolves once every operation in flight has been acknowledged or has failed (no kill). */
  async drain(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  private async worker(): Promise<void> {
    while (!this.frozen && !this.stopping) {
      const kind = this.w.pickKind();
      this.stats.byKind[kind] = (this.stats.byKind[kind] ?? 0) + 1;
      await this.run(kind);
    }
  }

  /**
   * Reads ranges of rows, or the counters, while the writers run, and checks
   * each row against the states it went through during the read: a read
   * must never see a half-applied row mutation or miss an acknowledged write
   * (during flushes and compactions too).
   */
  private async reader(): Promise<void> {
    const { rng, rowKeys: keys, expected } = this.w;
    while (!this.frozen && !this.stopping) {
      const mark = expected.readMark();
      try {
        if (rng.chance(0.2)) {
          const [rows] = await this.client.instance('i').table(COUNTER_TABLE).getRows({ decode: false });
          if (this.frozen) return;
          const { values, problems } = counterValues(rows);
          this.unexpected.push(...problems.map((p) => `cycle ${this.cycle}: during the load: ${p}`));
          for (const key of this.w.counterKeys) {
            this.unexpected.push(...expected.checkConcurrentCounter(mark, key, values.get(key)).map((p) => `cycle ${this.cycle}: ${p}`));
          }
        } else {
          const i = rng.int(0, keys.length - 1);
          const j = i + rng.int(1, 80);
          const from = keys[i]!;
          const to = keys[j];
          const [rows] = await this.kv().getRows({
            ranges: [{ start: from, ...(to === undefined ? {} : { end: bound(to, false) }) }],
            decode: false,
          });
          if (this.frozen) return;
          const observed = observedRows(rows);
          for (const key of keys.slice(i, j)) {
            this.unexpected.push(...expected.checkConcurrentRow(mark, key, observed.get(key)).map((p) => `cycle ${this.cycle}: ${p}`));
          }
        }
        this.stats.reads++;
      } catch (e) {
        if (this.frozen) return;
        this.unexpected.push(
          `cycle ${this.cycle}: a read during the load failed: ${codeName(codeOf(e))}: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  private kv(): Table {
    return this.client.instance('i').table(KV_TABLE);
  }

  private async run(kind: Kind): Promise<void> {
    const rng = this.w.rng;
    if (kind === 'admin') return this.admin();
    if (kind === 'dropRange') return this.dropRange();
    if (kind === 'increment') {
      const key = rng.pick(this.w.counterKeys);
      this.w.expected.sendIncrement(key);
      this.stats.sent++;
      await this.settle(`increment of ${key}`, this.client.instance('i').table(COUNTER_TABLE).row(key).increment(COUNTER_COLUMN, 1), () => {
        this.w.expected.ackIncrement(key);
        this.stats.increments++;
      });
      return;
    }
    const batchSize = kind === 'insert' ? rng.int(1, 16) : kind === 'replace' ? rng.int(1, 4) : 1;
    const keys = this.w.freeKeys(batchSize);
    if (keys.length === 0) {
      await new Promise((r) => setTimeout(r, 1));
      return;
    }
    const ops = keys.map((key) => ({ key, op: this.w.makeOp(kind, this.cycle) }));
    for (const { key, op } of ops) this.w.expected.send(key, op);
    this.stats.sent += ops.length;
    const what = `${kind} of ${ops.map(({ key, op }) => `${key}:${op.tag}`).join(',')}`;
    await this.settle(what, this.send(kind, ops), () => {
      for (const { key } of ops) this.w.expected.ack(key);
      this.stats.acked += ops.length;
    });
  }

  /** Creates an extra table, or deletes one: the catalog must survive crashes too. */
  private async admin(): Promise<void> {
    const { rng, tables } = this.w;
    const instance = this.client.instance('i');
    if (tables.liveCount() < 3 || rng.chance(0.5)) {
      const id = tables.sendCreate();
      await this.settle(`creation of table ${id}`, instance.table(id).create({ families: ['cf'] }), () => tables.ack(id));
    } else {
      const id = tables.sendDelete((ids) => rng.pick(ids));
      if (id === undefined) return;
      await this.settle(`deletion of table ${id}`, instance.table(id).delete(), () => tables.ack(id));
    }
  }

  /**
   * DropRowRange of a prefix that covers ten rows: waits until none of them
   * has a write in flight, holding each as it frees up, then drops them all.
   */
  private async dropRange(): Promise<void> {
    const { rng, rowKeys: keys, expected } = this.w;
    const prefix = rng.pick(keys).slice(0, 8);
    const covered = keys.filter((k) => k.startsWith(prefix));
    const op: TimedOp = {
      tag: `c${this.cycle}-drop-${prefix}`,
      via: `dropRowRange(${prefix})`,
      steps: [{ kind: 'deleteRow' }],
      tsMillis: 0,
    };
    const held = new Set<string>();
    const deadline = Date.now() + 2000;
    while (held.size < covered.length) {
      if (this.frozen) return; // What is held stays pending; it was never sent, so the rows must read as before.
      if (this.stopping || Date.now() > deadline) {
        for (const k of held) expected.cancel(k);
        return;
      }
      for (const k of covered) {
        if (!held.has(k) && !expected.isPending(k)) {
          expected.send(k, op);
          held.add(k);
        }
      }
      if (held.size < covered.length) await new Promise((r) => setTimeout(r, 2));
    }
    this.stats.sent += covered.length;
    await this.settle(`DropRowRange of ${prefix}`, this.kv().deleteRows(prefix), () => {
      for (const k of covered) expected.ack(k);
      this.stats.acked += covered.length;
    });
  }

  private send(kind: Kind, ops: { key: string; op: TimedOp }[]): Promise<unknown> {
    const table = this.kv();
    const first = ops[0]!;
    switch (kind) {
      case 'insert':
        return table.insert(ops.map(({ key, op }) => ({ key, data: cellsData(op) })));
      case 'save':
        return table.row(first.key).save(cellsData(first.op));
      case 'replace':
        return table.mutate(
          ops.map(({ key, op }) => ({ rowKey: Buffer.from(key), mutations: rawMutations(op) })),
          { rawMutation: true },
        );
      case 'mutateRow':
        return rawUnary(this.client, 'BigtableClient', 'mutateRow', {
          tableName: table.name,
          rowKey: Buffer.from(first.key),
          mutations: rawMutations(first.op),
        });
      case 'deleteRow':
        return table.row(first.key).delete();
      case 'deleteCells':
        return table.row(first.key).deleteCells(first.op.steps.flatMap((s) => (s.kind === 'deleteColumn' ? [s.column] : [])));
      case 'increment':
      case 'dropRange':
      case 'admin':
        throw new Error(`${kind} is sent by run()`);
    }
  }

  /** Awaits an operation; acknowledges it unless the load is frozen; records failures that no crash explains. */
  private async settle(what: string, p: Promise<unknown>, onAck: () => void): Promise<void> {
    try {
      await p;
      if (!this.frozen) onAck();
    } catch (e) {
      if (!this.frozen) {
        const code = codeOf(e);
        this.unexpected.push(
          `cycle ${this.cycle}: ${what} failed while the server was up: ${codeName(code)}: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      // Either way the operation stays pending: it may or may not have been applied.
    }
  }
}

export class CrashWorkload {
  readonly tables = new ExpectedTables();
  private tsMillis: number;
  private tagCounter = 0;
  private readonly kinds: Kind[];

  constructor(
    readonly expected: ExpectedState,
    readonly rng: Random,
    readonly rowKeys: readonly string[],
    readonly counterKeys: readonly string[],
  ) {
    // Every write carries a later timestamp than all before it, so that under
    // the max-versions-1 rule the newest write is the one a read shows.
    this.tsMillis = Date.now();
    this.kinds = WEIGHTS.flatMap(([k, w]) => Array<Kind>(w).fill(k));
  }

  start(client: Bigtable, cycle: number, writers: number, readers: number): RunningLoad {
    return new RunningLoad(this, client, cycle, writers, readers);
  }

  pickKind(): Kind {
    return this.rng.pick(this.kinds);
  }

  /** Up to `n` distinct keys with nothing in flight. */
  freeKeys(n: number): string[] {
    const out = new Set<string>();
    for (let attempt = 0; attempt < n * 4 && out.size < n; attempt++) {
      const key = this.rng.pick(this.rowKeys);
      if (!this.expected.isPending(key)) out.add(key);
    }
    return [...out];
  }

  makeOp(kind: Kind, cycle: number): TimedOp {
    const tag = `c${cycle}-${(++this.tagCounter).toString(36)}`;
    const tsMillis = ++this.tsMillis;
    const sets = (): Step[] => this.rng.subset(COLUMNS).map((column) => ({ kind: 'set', column }));
    let steps: Step[];
    switch (kind) {
      case 'insert':
      case 'save':
        steps = sets();
        break;
      case 'replace':
        steps = [{ kind: 'deleteRow' }, ...sets()];
        break;
      case 'mutateRow': {
        const del: Step = this.rng.chance(0.5)
          ? { kind: 'deleteFamily', family: this.rng.pick(FAMILIES) }
          : { kind: 'deleteColumn', column: this.rng.pick(COLUMNS) };
        steps = [del, ...sets()];
        break;
      }
      case 'deleteRow':
        steps = [{ kind: 'deleteRow' }];
        break;
      case 'deleteCells':
        steps = this.rng.subset(COLUMNS).map((column) => ({ kind: 'deleteColumn', column }));
        break;
      case 'increment':
      case 'dropRange':
      case 'admin':
        throw new Error(`${kind} has no single-row op`);
    }
    return { tag, via: kind, steps, tsMillis };
  }
}

/** Table#insert / Row#save data: family → qualifier → { value, timestamp }. */
function cellsData(op: TimedOp): Record<string, Record<string, { value: Buffer; timestamp: Date }>> {
  const ts = new Date(op.tsMillis);
  const data: Record<string, Record<string, { value: Buffer; timestamp: Date }>> = {};
  for (const step of op.steps) {
    if (step.kind !== 'set') throw new Error(`${op.via} cannot carry ${step.kind}`);
    const [family, qualifier] = split(step.column);
    (data[family] ??= {})[qualifier] = { value: cellValue(op.tag, step.column), timestamp: ts };
  }
  return data;
}

/** Mutations in the protobuf JSON form the client's raw paths take. */
function rawMutations(op: TimedOp): Record<string, unknown>[] {
  const micros = op.tsMillis * 1000;
  return op.steps.map((step) => {
    switch (step.kind) {
      case 'set': {
        const [familyName, qualifier] = split(step.column);
        return {
          setCell: { familyName, columnQualifier: Buffer.from(qualifier), timestampMicros: micros, value: cellValue(op.tag, step.column) },
        };
      }
      case 'deleteColumn': {
        const [familyName, qualifier] = split(step.column);
        return { deleteFromColumn: { familyName, columnQualifier: Buffer.from(qualifier) } };
      }
      case 'deleteFamily':
        return { deleteFromFamily: { familyName: step.family } };
      case 'deleteRow':
        return { deleteFromRow: {} };
    }
  });
}

function split(column: string): [string, string] {
  const i = column.indexOf(':');
  return [column.slice(0, i), column.slice(i + 1)];
}

/** Rows as read through the client (decode: false), as column → cells. */
export function observedRows(rows: readonly Row[]): Map<string, ObservedRow> {
  const observed = new Map<string, ObservedRow>();
  for (const row of rows) {
    const cells = new Map<string, { value: Buffer; timestampMicros: string }[]>();
    const data = row.data as Record<string, Record<string, { value: Buffer; timestamp: string | number }[]>>;
    for (const [family, columns] of Object.entries(data)) {
      for (const [qualifier, list] of Object.entries(columns)) {
        cells.set(
          `${family}:${qualifier}`,
          list.map((c) => ({ value: Buffer.from(c.value), timestampMicros: String(c.timestamp) })),
        );
      }
    }
    observed.set(String(row.id), cells);
  }
  return observed;
}

/** Counter values from the counter table's rows. */
export function counterValues(rows: readonly Row[]): { values: Map<string, number>; problems: string[] } {
  const values = new Map<string, number>();
  const problems: string[] = [];
  for (const row of rows) {
    // The client turns every 8-byte value into a number, even with decode: false.
    const data = row.data as Record<string, Record<string, { value: unknown }[]>>;
    const cells = data['n']?.['count'] ?? [];
    const value = cells[0]?.value;
    if (cells.length !== 1 || typeof value !== 'number') {
      problems.push(`counter ${String(row.id)}: expected one 8-byte cell, got ${cells.length} cells (first: ${JSON.stringify(value)})`);
      continue;
    }
    values.set(String(row.id), value);
  }
  return { values, problems };
}

/** Reads the whole row table and the counters through the client and checks them against the expected state (adopting what it saw). */
export async function verifyAll(client: Bigtable, w: CrashWorkload): Promise<string[]> {
  const { expected, rowKeys: keys, counterKeys: counters } = w;
  const instance = client.instance('i');
  const problems: string[] = [];
  const [tables] = await instance.getTables();
  const ids = new Set(tables.map((t) => String(t.id)));
  for (const id of [KV_TABLE, COUNTER_TABLE]) if (!ids.has(id)) problems.push(`table ${id} is missing`);
  problems.push(...w.tables.verify(new Set([...ids].filter((id) => id !== KV_TABLE && id !== COUNTER_TABLE))));

  const [rows] = await instance.table(KV_TABLE).getRows({ decode: false });
  const observed = observedRows(rows);
  const known = new Set(keys);
  for (const key of observed.keys()) if (!known.has(key)) problems.push(`unexpected row ${JSON.stringify(key)}`);
  for (const key of keys) problems.push(...expected.verifyRow(key, observed.get(key)));

  const [counterRows] = await instance.table(COUNTER_TABLE).getRows({ decode: false });
  const read = counterValues(counterRows);
  problems.push(...read.problems);
  for (const key of counters) problems.push(...expected.verifyCounter(key, read.values.get(key)));
  return problems;
}
