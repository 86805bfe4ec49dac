import type { Bigtable, Table } from '@google-cloud/bigtable';
import { codeName, codeOf } from '../harness/grpc-errors.js';
import { columnInRange, renderValue } from '../harness/rows.js';
import { APPEND, COUNTER, SUM } from './ops.js';
import type { MutationSpec, Op } from './ops.js';

/** Timestamps above this (µs; about 1970-01-12) were taken from a clock, not from the test. */
const CLOCK_TS = 1e12;

/**
 * Applies one operation through the Node client and returns its observable
 * outcome as text: rows read, values returned, whether a predicate matched,
 * or the gRPC code of a failure. Clock timestamps print as <now> (each
 * target has its own clock); copies of one cell from an interleave are sorted
 * (their mutual order is unspecified).
 */
export async function applyOp(client: Bigtable, table: Table, op: Op): Promise<string> {
  try {
    return await run(client, table, op);
  } catch (e) {
    const errors = (e as { errors?: { code?: number }[] }).errors;
    const code = codeOf(e) ?? errors?.[0]?.code;
    return `error ${codeName(code)}`;
  }
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 2));

async function run(client: Bigtable, table: Table, op: Op): Promise<string> {
  switch (op.op) {
    case 'set': {
      // A server timestamp is the server's "now": wait so that two of them never share a millisecond.
      if (op.entries.some((e) => e.ms === 'server')) await tick();
      await table.insert(
        op.entries.map((e) => ({
          key: e.key,
          data: { [e.family]: { [e.qualifier]: { value: e.value, timestamp: e.ms === 'server' ? -1 : new Date(e.ms) } } },
        })),
      );
      return 'ok';
    }
    case 'deleteColumn': {
      const column = `${op.family}:${op.qualifier}`;
      const ranged = op.fromMs !== undefined || op.toMs !== undefined;
      const time = {
        ...(op.fromMs !== undefined ? { start: new Date(op.fromMs) } : {}),
        ...(op.toMs !== undefined ? { end: new Date(op.toMs) } : {}),
      };
      await table.row(op.key).deleteCells([ranged ? columnInRange(column, time) : column]);
      return 'ok';
    }
    case 'deleteFamily':
      await table.row(op.key).deleteCells([op.family]);
      return 'ok';
    case 'deleteRow':
      await table.row(op.key).delete();
      return 'ok';
    case 'increment': {
      await tick();
      const [value] = await table.row(op.key).increment(`${COUNTER}:${op.qualifier}`, op.delta);
      return `value ${String(value)}`;
    }
    case 'append': {
      await tick();
      const [response] = (await table.row(op.key).createRules([{ column: `${APPEND}:${op.qualifier}`, append: op.value }])) as unknown as [
        { row?: { families?: { columns?: { cells?: { value?: Uint8Array }[] }[] }[] } },
      ];
      const cell = response.row?.families?.[0]?.columns?.[0]?.cells?.[0];
      return `value ${JSON.stringify(Buffer.from(cell?.value ?? []).toString('latin1'))}`;
    }
    case 'addToCell':
      await table.mutate(
        [
          {
            rowKey: Buffer.from(op.key),
            mutations: [
              {
                addToCell: {
                  familyName: SUM,
                  columnQualifier: { rawValue: Buffer.from(op.qualifier) },
                  timestamp: { rawTimestampMicros: op.ms * 1000 },
                  input: { intValue: op.value },
                },
              },
            ],
          },
        ],
        { rawMutation: true },
      );
      return 'ok';
    case 'checkAndMutate': {
      const [matched] = await table
        .row(op.key)
        .filter(op.predicate ?? [{ all: true }], { onMatch: op.onMatch.map(mutation), onNoMatch: op.onNoMatch.map(mutation) });
      return `matched ${String(matched)}`;
    }
    case 'dropPrefix':
      await table.deleteRows(op.prefix);
      return 'ok';
    case 'read': {
      const [rows] = await table.getRows({
        ...(op.keys.length > 0 ? { keys: [...op.keys] } : {}),
        ...(op.ranges.length > 0 ? { ranges: op.ranges.map((r) => ({ ...r })) } : {}),
        ...(op.limit > 0 ? { limit: op.limit } : {}),
        ...(op.filter ? { filter: op.filter } : {}),
      });
      return renderNormalized(rows).join('\n');
    }
  }
}

function mutation(m: MutationSpec): Record<string, unknown> {
  switch (m.kind) {
    case 'set':
      return { method: 'insert', data: { [m.family]: { [m.qualifier]: { value: m.value, timestamp: new Date(m.ms) } } } };
    case 'deleteColumn':
      return { method: 'delete', data: [`${m.family}:${m.qualifier}`] };
    case 'deleteRow':
      return { method: 'delete' };
  }
}

interface CellData {
  value: unknown;
  timestamp: string;
  labels?: string[];
}

/** Rows, one line per cell; see applyOp for the normalisation. */
export function renderNormalized(rows: readonly { id: unknown; data: unknown }[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    for (const [family, columns] of Object.entries(row.data as Record<string, Record<string, CellData[]>>)) {
      for (const [qualifier, cells] of Object.entries(columns)) {
        const rendered = cells.map((c) => {
          const ts = Number(c.timestamp) > CLOCK_TS ? '<now>' : c.timestamp;
          const labels = c.labels && c.labels.length > 0 ? ` [${c.labels.join(',')}]` : '';
          return { ts: Number(c.timestamp), text: `${String(row.id)} ${family}:${qualifier} @${ts} ${renderValue(c.value)}${labels}` };
        });
        // Stable sort: newest first, and equal timestamps (interleave copies) by text.
        rendered.sort((a, b) => b.ts - a.ts || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
        lines.push(...rendered.map((r) => r.text));
      }
    }
  }
  return lines;
}

/** Everything in the table, rendered: the state two targets must agree on. */
export async function snapshot(table: Table): Promise<string> {
  const [rows] = await table.getRows();
  return renderNormalized(rows).join('\n');
}
