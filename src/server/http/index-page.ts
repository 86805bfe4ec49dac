/** The HTML index page of the HTTP server: what is served where. */
export function indexPage(opts: {
  readonly grpcAddress: string;
  readonly storage: string;
  readonly version: string;
  /** Served over TLS: clients connect with the CA and a custom endpoint, not BIGTABLE_EMULATOR_HOST (plain text). */
  readonly tls?: object | undefined;
}): string {
  const grpc = escapeHtml(opts.grpcAddress);
  const connect =
    opts.tls === undefined
      ? `<p>A Bigtable-compatible database. The Cloud Bigtable Data API and the Table and Instance Admin APIs are served over gRPC at
<code>${grpc}</code>; point the official clients at it with</p>
<pre><code>export BIGTABLE_EMULATOR_HOST=${grpc}</code></pre>`
      : `<p>A Bigtable-compatible database. The Cloud Bigtable Data API and the Table and Instance Admin APIs are served over gRPC
with TLS at <code>${grpc}</code>: connect the official clients with that endpoint, the server's CA certificate and a token
(the README's "Authentication and TLS" shows how for Node, Go, Java and cbt).</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>tabletop</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f2f2f2;padding:0 .25rem}</style>
</head>
<body>
<h1>tabletop ${escapeHtml(opts.version)}</h1>
${connect}
<p>Storage: ${escapeHtml(opts.storage)}.</p>
<h2>On this HTTP server</h2>
<ul>
<li><a href="/healthz"><code>/healthz</code></a>: liveness (<code>ok</code>)</li>
<li><a href="/metrics"><code>/metrics</code></a>: Prometheus metrics (requests by RPC, table and status code, latency histograms, tablets, nodes, storage)</li>
<li><a href="/api/v1/projects"><code>/api/v1/projects</code></a>: projects with their instances (JSON)</li>
<li><code>/api/v1/projects/{project}/instances</code>: instances of a project (JSON)</li>
<li><code>/api/v1/projects/{project}/instances/{instance}</code>: an instance with its clusters and app profiles</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/tables</code>: tables of an instance, with stored bytes, rows and tablets</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/tables/{table}</code>: a table, its column families and GC rules, its tablets and hot tablets</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/tables/{table}/heatmap?metric=&amp;from=&amp;to=&amp;start=&amp;end=</code>: the Key Visualizer's heatmap: a metric per key bucket and time (times ISO 8601 or epoch ms, keys base64)</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/tables/{table}/diagnostics?from=&amp;to=</code>: hotspots, sequential keys, large rows and other findings, in words</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/tables/{table}/tablets</code>: its tablets: keys, stored and logical bytes, rows, node, recent load</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/nodes</code>: each cluster's modelled nodes (its serve nodes): what they hold and serve</li>
<li><code>/api/v1/projects/{project}/instances/{instance}/hot-tablets</code>: tablets by the serving time they cost their node</li>
</ul>
<p>Stored bytes are what a tablet takes in storage (compressed SSTables plus memtables); logical bytes are its
uncompressed keys and cells. Row counts are <em>estimates</em> in the durable engine (a row counts once per SSTable
and memtable holding it, until compaction; each tablet's <code>estimates</code> lists its estimated figures).
Serving time is the node model's CPU: the time spent in a tablet's reads and writes, not process CPU time; a node's
capacity is one second of serving per second. An instance answers 404 until it is created (CreateInstance) or used
by a CreateTable.</p>
</body>
</html>
`;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
