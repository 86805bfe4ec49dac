import type { CliIo } from './cli-io.js';
import { HttpApiError, apiServer, chooseInstance, postApi, segment } from './http-api.js';
import { SqlParamError, type SqlParamJson, parseParamFlag } from './sql-params.js';

export interface SqlOptions {
  readonly json?: boolean | undefined;
  readonly server?: string | undefined;
  readonly project?: string | undefined;
  readonly instance?: string | undefined;
  /** `name=TYPE:value` each (sql-params.ts). */
  readonly param?: readonly string[] | undefined;
}

/** What `POST .../sql` answers (src/server/http/sql-route.ts). */
interface SqlAnswer {
  readonly columns: { name: string; type: string }[];
  readonly rows: unknown[][];
  readonly truncated: boolean;
  readonly stats: { rowsScanned: number; rowsReturned: number; elapsedMillis?: number };
}

/**
 * `tabletop sql "SELECT ..."`: runs a GoogleSQL query on a running server
 * (`POST .../instances/{i}/sql` of its HTTP API) and prints the result as a
 * terminal table (`--json`: the API's JSON). The instance: --project and
 * --instance, or the server's only instance that matches what is given.
 * `--param name=TYPE:value` (repeatable) gives `@name` (sql-params.ts has the
 * forms); a bad one is a command-line error, named before anything is sent.
 * Exit code 0 done; 1 the query failed or the server cannot be reached; 2 a
 * bad command line.
 */
export async function sqlCommand(query: string, opts: SqlOptions, io: CliIo): Promise<number> {
  const fail = (message: string, code: number): number => {
    io.stderr(`tabletop sql: ${message}`);
    return code;
  };
  if (query.trim() === '') return fail('give the query, e.g. tabletop sql "SELECT _key FROM t LIMIT 10"', 2);
  const params = paramsOf(opts.param ?? []);
  if (typeof params === 'string') return fail(params, 2);
  const server = apiServer(opts.server, io.env);
  try {
    const chosen = await chooseInstance(server, opts.project, opts.instance);
    if (typeof chosen === 'string') return fail(chosen, 2);
    const answer = await postApi<SqlAnswer>(
      server,
      `/api/v1/projects/${segment(chosen.project)}/instances/${segment(chosen.instance)}/sql`,
      params.size === 0 ? { query } : { query, params: Object.fromEntries(params) },
    );
    io.stdout(opts.json === true ? JSON.stringify(answer, null, 2) : renderResult(answer));
    return 0;
  } catch (e) {
    if (e instanceof HttpApiError) return fail(e.message, 1);
    throw e;
  }
}

/** The parameters of `--param` flags by name, or why one cannot be sent. */
function paramsOf(flags: readonly string[]): Map<string, SqlParamJson> | string {
  const params = new Map<string, SqlParamJson>();
  for (const flag of flags) {
    try {
      const { name, param } = parseParamFlag(flag);
      if (params.has(name)) return `--param ${flag}: @${name} is given twice`;
      params.set(name, param);
    } catch (e) {
      if (e instanceof SqlParamError) return `--param ${flag}: ${e.message}`;
      throw e;
    }
  }
  return params;
}

const MAX_CELL = 60;

/** The result as a table: a header of names and types, one line per row, then the counts. */
export function renderResult(a: SqlAnswer): string {
  const header = a.columns.map((c) => c.name);
  const types = a.columns.map((c) => c.type);
  const cells = a.rows.map((r) => r.map(cellText));
  const widths = header.map((h, i) => Math.max(h.length, types[i]!.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]): string => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const out = [rule, line(header), line(types), rule, ...cells.map(line), rule];
  const n = a.rows.length;
  out.push(
    `${n} row${n === 1 ? '' : 's'}${a.truncated ? ' (truncated: the API returns at most this many)' : ''}; ${a.stats.rowsScanned} row${a.stats.rowsScanned === 1 ? '' : 's'} scanned`,
  );
  return out.join('\n');
}

/** A JSON value as one short line: NULL, bytes by their printable form, arrays and objects as compact JSON. */
export function cellText(v: unknown): string {
  const text = shortText(v);
  const flat = text.replace(/[\n\r\t]/g, ' ');
  return flat.length > MAX_CELL ? flat.slice(0, MAX_CELL - 1) + '…' : flat;
}

function shortText(v: unknown): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isBytes(v)) return v.printable;
  return JSON.stringify(v, (_k, x: unknown) => (isBytes(x) ? x.printable : x));
}

function isBytes(v: unknown): v is { base64: string; printable: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as { printable?: unknown }).printable === 'string' &&
    Object.keys(v).length === 2
  );
}
