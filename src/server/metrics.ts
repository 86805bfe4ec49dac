import type { CallObserver } from './method-table.js';
import type { Logger } from './logger.js';
import { formatMillis } from '../units.js';

/**
 * Request metrics, counted on the hot path in plain numbers; the HTTP
 * server's /metrics (http/prometheus.ts) reads them through prom-client at
 * each scrape, so that neither prom-client nor its label handling costs
 * anything per call:
 *   requests by service, method, table and status code;
 *   a latency histogram per method (LATENCY_BUCKETS_SECONDS, not cumulative
 *   here: the exposition cumulates them);
 *   requests in flight per method;
 *   rows and cells returned by ReadRows, mutations received.
 * The table is the full name the request targets (`method.resource`; a
 * call through an authorized view counts under its table), "" for calls
 * that target no table. Names come from clients, unchecked: a call that
 * failed on its name (NOT_FOUND, INVALID_ARGUMENT, PERMISSION_DENIED,
 * UNAUTHENTICATED) counts under NAMELESS instead, so that made-up names
 * leave no series behind (protocol fuzzing grew the server by 200 MiB of
 * them over a million requests); past MAX_TABLES_PER_METHOD distinct names
 * per method the rest count under OTHER_TABLES.
 */

/** Upper bounds (seconds) of the latency histogram's buckets; +Inf is implied. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export const MAX_TABLES_PER_METHOD = 1000;
export const OTHER_TABLES = '(other)';
/** Where calls that failed on the name they gave count (its table may not exist). */
export const NAMELESS = '(not found or invalid)';
/** Statuses that may mean the name was wrong. */
const NAME_FAILURES = new Set(['NOT_FOUND', 'INVALID_ARGUMENT', 'PERMISSION_DENIED', 'UNAUTHENTICATED']);

/** Requests of one method on one table, by status name. */
export interface TableSeries {
  readonly table: string;
  readonly codes: Map<string, number>;
}

/** Everything counted for one method. */
export interface MethodSeries {
  readonly service: string;
  readonly method: string;
  inFlight: number;
  readonly tables: Map<string, TableSeries>;
  /** Calls per latency bucket (LATENCY_BUCKETS_SECONDS, then +Inf), not cumulative. */
  readonly buckets: Float64Array;
  sumSeconds: number;
  count: number;
}

export class Metrics {
  private readonly methods = new Map<string, MethodSeries>();
  rowsReturned = 0;
  cellsReturned = 0;
  mutations = 0;
  readonly startMillis = Date.now();

  /**
   * What starts a call of one method: each call of the function returned
   * marks one as started on `table` ("" for none) and returns the function
   * that records its end with a status name (once). The method's series
   * appear at its first call.
   */
  calls(service: string, method: string): (table: string) => (code: string) => void {
    let m: MethodSeries | undefined;
    return (table) => {
      m ??= this.methodSeries(service, method);
      return begin(m, table);
    };
  }

  /** Requests counted so far for a method and status name, over all tables or on one (for tests). */
  count(service: string, method: string, code: string, table?: string): number {
    const m = this.methods.get(`${service}/${method}`);
    if (m === undefined) return 0;
    let n = 0;
    for (const t of m.tables.values()) if (table === undefined || t.table === table) n += t.codes.get(code) ?? 0;
    return n;
  }

  /** Calls of a method being served now. */
  inFlight(service: string, method: string): number {
    return this.methods.get(`${service}/${method}`)?.inFlight ?? 0;
  }

  /** Every method's series, sorted by service and method (read by the exposition). */
  series(): MethodSeries[] {
    return [...this.methods.values()].sort((a, b) => compare(a.service, b.service) || compare(a.method, b.method));
  }

  private methodSeries(service: string, method: string): MethodSeries {
    const key = `${service}/${method}`;
    let m = this.methods.get(key);
    if (m === undefined) {
      m = {
        service,
        method,
        inFlight: 0,
        tables: new Map(),
        buckets: new Float64Array(LATENCY_BUCKETS_SECONDS.length + 1),
        sumSeconds: 0,
        count: 0,
      };
      this.methods.set(key, m);
    }
    return m;
  }
}

function begin(m: MethodSeries, table: string): (code: string) => void {
  m.inFlight++;
  const began = performance.now();
  let ended = false;
  return (code: string) => {
    if (ended) return;
    ended = true;
    m.inFlight--;
    const t = tableSeries(m, table !== '' && NAME_FAILURES.has(code) ? NAMELESS : table);
    t.codes.set(code, (t.codes.get(code) ?? 0) + 1);
    const seconds = (performance.now() - began) / 1000;
    let i = 0;
    while (i < LATENCY_BUCKETS_SECONDS.length && seconds > LATENCY_BUCKETS_SECONDS[i]!) i++;
    m.buckets[i]!++;
    m.sumSeconds += seconds;
    m.count++;
  };
}

function tableSeries(m: MethodSeries, table: string): TableSeries {
  let t = m.tables.get(table);
  if (t === undefined) {
    const name = m.tables.size < MAX_TABLES_PER_METHOD ? table : OTHER_TABLES;
    t = m.tables.get(name);
    if (t === undefined) {
      t = { table: name, codes: new Map() };
      m.tables.set(name, t);
    }
  }
  return t;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The observer of every call (method-table.ts): counts it in the request
 * metrics under the table it targets and, when it took at least
 * `slowCallMillis` (0: never), logs it (warn) with the resource it targeted
 * and its status.
 */
export function observeCalls(metrics: Metrics, logger: Logger, slowCallMillis: number): CallObserver {
  return (method) => {
    const start = metrics.calls(method.service, method.name);
    const tableOf = (request: unknown): string => {
      const r = method.resource(request);
      if (r === undefined) return '';
      if (r.kind === 'table') return r.name;
      // A call through an authorized view counts under the view's table.
      return r.kind === 'authorizedView' ? tableOfView(r.name) : '';
    };
    if (slowCallMillis <= 0) return (request) => start(tableOf(request));
    return (request) => {
      const end = start(tableOf(request));
      const began = performance.now();
      let ended = false;
      return (code: string) => {
        if (ended) return;
        ended = true;
        end(code);
        const millis = performance.now() - began;
        if (millis < slowCallMillis) return;
        const target = method.resource(request)?.name;
        logger.warn(`slow call: ${method.name}${target === undefined ? '' : ` on ${target}`} took ${formatMillis(millis)} (${code})`, {
          event: 'slow-call',
          service: method.service,
          method: method.name,
          ...(target === undefined ? {} : { target }),
          code,
          millis: Math.round(millis),
        });
      };
    };
  };
}

/** The table of an authorized view's full name (`…/tables/t/authorizedViews/v` → `…/tables/t`). */
function tableOfView(name: string): string {
  const at = name.lastIndexOf('/authorizedViews/');
  return at < 0 ? '' : name.slice(0, at);
}
