/**
 * Request metrics, rendered in the Prometheus text exposition format (0.0.4)
 * by the HTTP server at /metrics:
 *   tabletop_grpc_requests_total{service,method,code}   counter
 *   tabletop_grpc_request_seconds_sum / _count{service,method}   summary parts
 *   tabletop_grpc_in_flight{service,method}           gauge
 *   tabletop_read_rows_returned_total, tabletop_read_cells_returned_total, tabletop_mutations_total
 */
export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly seconds = new Map<string, { sum: number; count: number }>();
  private readonly inFlight = new Map<string, number>();
  rowsReturned = 0;
  cellsReturned = 0;
  mutations = 0;
  readonly startMillis = Date.now();

  /** Marks a call as started; returns the function that records its end with a status name. */
  start(service: string, method: string): (code: string) => void {
    const key = labels({ service, method });
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    const began = performance.now();
    let ended = false;
    return (code: string) => {
      if (ended) return;
      ended = true;
      this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
      const ck = labels({ service, method, code });
      this.requests.set(ck, (this.requests.get(ck) ?? 0) + 1);
      const s = this.seconds.get(key) ?? { sum: 0, count: 0 };
      s.sum += (performance.now() - began) / 1000;
      s.count++;
      this.seconds.set(key, s);
    };
  }

  /** Requests counted so far for a method and status name (for tests and the UI). */
  count(service: string, method: string, code: string): number {
    return this.requests.get(labels({ service, method, code })) ?? 0;
  }

  render(): string {
    const out: string[] = [];
    out.push('# HELP tabletop_grpc_requests_total gRPC requests by service, method and status code.');
    out.push('# TYPE tabletop_grpc_requests_total counter');
    for (const [k, v] of sorted(this.requests)) out.push(`tabletop_grpc_requests_total{${k}} ${v}`);
    out.push('# HELP tabletop_grpc_request_seconds Time spent serving gRPC requests.');
    out.push('# TYPE tabletop_grpc_request_seconds summary');
    for (const [k, v] of sorted(this.seconds)) {
      out.push(`tabletop_grpc_request_seconds_sum{${k}} ${v.sum}`);
      out.push(`tabletop_grpc_request_seconds_count{${k}} ${v.count}`);
    }
    out.push('# HELP tabletop_grpc_in_flight gRPC requests being served.');
    out.push('# TYPE tabletop_grpc_in_flight gauge');
    for (const [k, v] of sorted(this.inFlight)) out.push(`tabletop_grpc_in_flight{${k}} ${v}`);
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

function sorted<V>(m: Map<string, V>): [string, V][] {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
