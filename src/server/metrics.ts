import type { CallObserver } from './method-table.js';
import type { Logger } from './logger.js';
import { formatMillis } from '../units.js';

/**
 * Request metrics, rendered in the Prometheus text exposition format (0.0.4)
 * by the HTTP server at /metrics:
 *   tabletop_grpc_requests_total{service,method,code}   counter
 *   tabletop_grpc_request_seconds_sum / _count{service,method}   summary parts
 *   tabletop_grpc_in_flight{service,method}           gauge
 *   tabletop_read_rows_returned_total, tabletop_read_cells_returned_total, tabletop_mutations_total
 */
/** Everything counted for one method; its label strings are built once. */
interface MethodSeries {
  readonly labels: string;
  inFlight: number;
  sum: number;
  count: number;
  /** Requests by status name, with their label strings. */
  readonly codes: Map<string, { readonly labels: string; n: number }>;
}

export class Metrics {
  private readonly methods = new Map<string, MethodSeries>();
  rowsReturned = 0;
  cellsReturned = 0;
  mutations = 0;
  readonly startMillis = Date.now();

  /**
   * What starts a call of one method: each call of the function returned
   * marks one as started and returns the function that records its end with
   * a status name (once). The method's series appear at its first call.
   */
  calls(service: string, method: string): () => (code: string) => void {
    let m: MethodSeries | undefined;
    return () => {
      m ??= this.series(service, method);
      return this.begin(m, service, method);
    };
  }

  private begin(m: MethodSeries, service: string, method: string): (code: string) => void {
    m.inFlight++;
    const began = performance.now();
    let ended = false;
    return (code: string) => {
      if (ended) return;
      ended = true;
      m.inFlight--;
      let c = m.codes.get(code);
      if (c === undefined) {
        c = { labels: labels({ service, method, code }), n: 0 };
        m.codes.set(code, c);
      }
      c.n++;
      m.sum += (performance.now() - began) / 1000;
      m.count++;
    };
  }

  /** Requests counted so far for a method and status name (for tests and the UI). */
  count(service: string, method: string, code: string): number {
    return this.methods.get(`${service}/${method}`)?.codes.get(code)?.n ?? 0;
  }

  private series(service: string, method: string): MethodSeries {
    const key = `${service}/${method}`;
    let m = this.methods.get(key);
    if (m === undefined) {
      m = { labels: labels({ service, method }), inFlight: 0, sum: 0, count: 0, codes: new Map() };
      this.methods.set(key, m);
    }
    return m;
  }

  render(): string {
    const methods = [...this.methods.values()].sort((a, b) => (a.labels < b.labels ? -1 : a.labels > b.labels ? 1 : 0));
    const out: string[] = [];
    out.push('# HELP tabletop_grpc_requests_total gRPC requests by service, method and status code.');
    out.push('# TYPE tabletop_grpc_requests_total counter');
    const codes = methods.flatMap((m) => [...m.codes.values()]).sort((a, b) => (a.labels < b.labels ? -1 : a.labels > b.labels ? 1 : 0));
    for (const c of codes) out.push(`tabletop_grpc_requests_total{${c.labels}} ${c.n}`);
    out.push('# HELP tabletop_grpc_request_seconds Time spent serving gRPC requests.');
    out.push('# TYPE tabletop_grpc_request_seconds summary');
    for (const m of methods) {
      if (m.count === 0) continue;
      out.push(`tabletop_grpc_request_seconds_sum{${m.labels}} ${m.sum}`);
      out.push(`tabletop_grpc_request_seconds_count{${m.labels}} ${m.count}`);
    }
    out.push('# HELP tabletop_grpc_in_flight gRPC requests being served.');
    out.push('# TYPE tabletop_grpc_in_flight gauge');
    for (const m of methods) out.push(`tabletop_grpc_in_flight{${m.labels}} ${m.inFlight}`);
    out.push('# HELP tabletop_read_rows_returned_total Rows returned by ReadRows.');
    out.push('# TYPE tabletop_read_rows_returned_total counter');
    out.push(`tabletop_read_rows_returned_total ${this.rowsReturned}`);
    out.push('# HELP tabletop_read_cells_returned_total Cells returned by ReadRows.');
    out.push('# TYPE tabletop_read_cells_returned_total counter');
    out.push(`tabletop_read_cells_returned_total ${this.cellsReturned}`);
    out.push('# HELP tabletop_mutations_total Mutations received by MutateRow, MutateRows and CheckAndMutateRow.');
    out.push('# TYPE tabletop_mutations_total counter');
    out.push(`tabletop_mutations_total ${this.mutations}`);
    out.push('# HELP tabletop_start_time_seconds When the server started (Unix time).');
    out.push('# TYPE tabletop_start_time_seconds gauge');
    out.push(`tabletop_start_time_seconds ${this.startMillis / 1000}`);
    return out.join('\n') + '\n';
  }
}

function labels(l: Record<string, string>): string {
  return Object.entries(l)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

/**
 * The observer of every call (method-table.ts): counts it in the request
 * metrics and, when it took at least `slowCallMillis` (0: never), logs it
 * (warn) with the resource it targeted and its status.
 */
export function observeCalls(metrics: Metrics, logger: Logger, slowCallMillis: number): CallObserver {
  return (method) => {
    const start = metrics.calls(method.service, method.name);
    if (slowCallMillis <= 0) return start;
    return (request) => {
      const end = start();
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
