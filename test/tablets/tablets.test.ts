/**
 * Tablets seen through the official Node client, the JSON API, the
 * `tabletop tablets` command and ListHotTablets, on a real server started in
 * this process with small split thresholds.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { type RunningServer, startServer } from '../../src/index.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { uniqueTableId } from '../harness/names.js';
import type { Target } from '../harness/targets.js';
import { rawClients, unaryCall } from '../../src/server/testing/raw-client.js';

let server: RunningServer;
let target: Target;
const logs: string[] = [];

beforeAll(async () => {
  server = await startServer({
    httpPort: 0,
    logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(`error: ${m}`) },
    config: {
      tabletSplitBytes: 32 * 1024,
      tabletCheckIntervalMillis: 100,
      balanceIntervalMillis: 200,
      loadSplitRequestsPerSec: 100,
      loadSplitWindowMillis: 2000,
      nodes: 3,
    },
  });
  target = {
    kind: 'tabletop',
    address: server.address,
    host: server.host,
    port: server.port,
    output: () => logs.join('\n'),
    stop: () => server.stop(),
  };
});

afterAll(async () => {
  await server?.stop();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`http://localhost:${server.httpPort}/api/v1/projects/${PROJECT}/instances/${INSTANCE}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

interface TabletJson {
  tabletId: string;
  startKey: { base64: string; printable: string };
  endKey: { base64: string; printable: string } | null;
  nodes: { clusterId: string; node: number }[];
  storedBytes: number;
  logicalBytes: number;
  rowCount: number;
  estimates: string[];
  singleRowHotspot: { key: { printable: string }; share: number } | null;
}

/** The lines `tabletop tablets TABLE` prints against the HTTP server on `httpPort` (it must succeed). */
async function tabletsCommand(table: string, httpPort: number): Promise<string[]> {
  const out: string[] = [];
  const code = await runCli(['tablets', table, '--project', PROJECT, '--instance', INSTANCE, '--server', `localhost:${httpPort}`], {
    stdout: (l) => void out.push(l),
    stderr: (l) => void out.push(l),
    onSignal: () => () => undefined,
    exitNow: () => undefined,
  });
  expect(code, out.join('\n')).toBe(0);
  return out.join('\n').split('\n');
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logs.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('tablets through the official client and the tools', () => {
  it('a growing table splits by size; every row stays readable; SampleRowKeys, the JSON API and `tabletop tablets` agree', async () => {
    const bigtable = nodeClient(target);
    const id = uniqueTableId('size');
    const [table] = await bigtable.instance(INSTANCE).createTable(id, { families: ['cf'] });
    const keys = Array.from({ length: 600 }, (_, i) => `user${String(i).padStart(5, '0')}`);
    for (let b = 0; b < keys.length; b += 100) {
      await table.insert(keys.slice(b, b + 100).map((key) => ({ key, data: { cf: { q: randomBytes(300) } } })));
    }
    await until('size splits', async () => (await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`)).tablets.length >= 4);
    expect(logs.some((l) => l.includes(`tables/${id} at "user`) && l.includes('split size'))).toBe(true);

    const [rows] = await table.getRows();
    expect(rows.map((r) => r.id)).toEqual(keys);

    const { tablets } = await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`);
    const [samples] = await table.sampleRowKeys();
    const sampleKeys = samples.map((s) => Buffer.from(s.key).toString('latin1'));
    for (const t of tablets.slice(1)) expect(sampleKeys).toContain(t.startKey.printable);
    expect(tablets[0]!.startKey.printable).toBe('');
    expect(tablets[tablets.length - 1]!.endKey).toBeNull();
    for (let i = 1; i < tablets.length; i++) expect(tablets[i - 1]!.endKey!.base64).toBe(tablets[i]!.startKey.base64);

    const lines = await tabletsCommand(id, server.httpPort!);
    expect(lines[0]).toMatch(
      /^TABLET\s+START KEY\s+END KEY\s+STORED\s+LOGICAL\s+ROWS\s+NODE\s+REQ\/S\s+ROWS READ\/S\s+ROWS WRITTEN\/S\s+SERVING$/,
    );
    // Splits may still be going on: at least the tablets seen a moment ago.
    const rowsShown = lines.slice(1, lines.indexOf(''));
    expect(rowsShown.length).toBeGreaterThanOrEqual(tablets.length);
    expect(rowsShown[0]).toContain('(start)');
    expect(lines.slice(lines.indexOf('') + 1).join('\n')).toMatch(
      /^STORED: bytes in storage .*\nSERVING: serving time as a percent of one node/,
    );

    // An in-memory server counts exactly: every row once, logical bytes the rows' own (300-byte values).
    expect(tablets.every((t) => t.estimates.length === 0 && t.storedBytes === t.logicalBytes)).toBe(true);
    expect(tablets.reduce((n, t) => n + t.rowCount, 0)).toBe(600);
    expect(tablets.reduce((n, t) => n + t.logicalBytes, 0)).toBeGreaterThan(600 * 300);
    expect(tablets.every((t) => t.nodes.length === 1 && t.nodes[0]!.clusterId === `${INSTANCE}-c1` && t.nodes[0]!.node < 3)).toBe(true);
    await bigtable.close();
  });

  it('sustained load splits a tablet where the requests divide; one hot row is reported, by ListHotTablets too, and not split', async () => {
    const bigtable = nodeClient(target);
    const id = uniqueTableId('load');
    const [table] = await bigtable.instance(INSTANCE).createTable(id, { families: ['cf'] });
    const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await table.insert(keys.map((key) => ({ key, data: { cf: { q: 'v' } } })));
    const readFor = async (which: string[], ms: number): Promise<void> => {
      const end = Date.now() + ms;
      let i = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (Date.now() < end) await table.row(which[i++ % which.length]!).get();
        }),
      );
    };
    await readFor(keys, 4000);
    await until('a load split', async () => (await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`)).tablets.length >= 2);
    expect(logs.some((l) => l.includes(`tables/${id}`) && l.includes('requests/s'))).toBe(true);

    const hot = 'k030';
    await readFor([hot], 4000);
    await until('the hotspot report', async () =>
      (await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`)).tablets.some((t) => t.singleRowHotspot?.key.printable === hot),
    );
    const count = (await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`)).tablets.length;
    await readFor([hot], 1500);
    expect((await api<{ tablets: TabletJson[] }>(`/tables/${id}/tablets`)).tablets.length).toBe(count);
    expect(logs.filter((l) => l.includes(`tables/${id}`) && l.includes('single-row hotspot'))).toHaveLength(1);

    // The Node client has no ListHotTablets: ask over raw gRPC, as gcloud and the Go client do.
    const clients = rawClients(server.address);
    const listed = await unaryCall<{
      hotTablets: { name: string; tableName: string; startKey: string; endKey: string; nodeCpuUsagePercent: number }[];
    }>(clients.instanceAdmin, 'ListHotTablets', { parent: `projects/${PROJECT}/instances/${INSTANCE}/clusters/-` });
    clients.close();
    const mine = listed.hotTablets.filter((h) => h.tableName.endsWith(`/tables/${id}`));
    expect(mine.length).toBeGreaterThan(0);
    const cpu = listed.hotTablets.map((h) => h.nodeCpuUsagePercent);
    expect([...cpu].sort((a, b) => b - a)).toEqual(cpu);
    expect(mine[0]!.name).toMatch(new RegExp(`^projects/${PROJECT}/instances/${INSTANCE}/clusters/[^/]+/hotTablets/`));
    expect(mine.some((h) => h.startKey <= hot && (h.endKey === '' || hot < h.endKey))).toBe(true);
    const res = await fetch(`http://localhost:${server.httpPort}/api/v1/projects/${PROJECT}/instances/${INSTANCE}/hot-tablets`);
    const { hotTablets: viaApi } = (await res.json()) as {
      hotTablets: { table: string; clusterId: string; servingPercentOfNode: number; shareOfNodeServing: number }[];
    };
    expect(viaApi.length).toBeGreaterThan(0);
    // Hottest first, by the serving time a tablet costs its node (a share of a node's capacity).
    const percents = viaApi.map((h) => h.servingPercentOfNode);
    expect([...percents].sort((a, b) => b - a)).toEqual(percents);
    // (Figures are rounded to 3 decimals: a barely touched tablet may show 0.)
    expect(percents[0]).toBeGreaterThan(0);
    for (const h of viaApi) {
      expect(h.clusterId).toBe(`${INSTANCE}-c1`);
      expect(h.shareOfNodeServing).toBeGreaterThanOrEqual(0);
      expect(h.shareOfNodeServing).toBeLessThanOrEqual(1);
    }
    const { clusters } = await api<{
      clusters: { clusterId: string; serveNodes: number; servingUtilization: number; nodes: { node: number; tablets: string[] }[] }[];
    }>('/nodes');
    expect(clusters.map((c) => [c.clusterId, c.serveNodes, c.nodes.length])).toEqual([[`${INSTANCE}-c1`, 3, 3]]);
    await bigtable.close();
  });

  it('on the durable engine, says which figures are estimates, and shows logical bytes next to the compressed stored bytes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tabletop-tablets-'));
    const durable = await startServer({
      httpPort: 0,
      dataDir,
      config: { memtableBytes: 64 * 1024, tabletCheckIntervalMillis: 0 },
      logger: { info: () => {}, warn: () => {}, error: (m) => logs.push(`error: ${m}`) },
    });
    try {
      const bigtable = nodeClient({ address: durable.address });
      const [table] = await bigtable.instance(INSTANCE).createTable('durable', { families: ['cf'] });
      // Compressible values, several memtables' worth: flushed to lz4-compressed SSTables.
      for (let b = 0; b < 5; b++) {
        await table.insert(
          Array.from({ length: 100 }, (_, i) => ({
            key: `row${String(b * 100 + i).padStart(4, '0')}`,
            data: { cf: { q: 'abcd'.repeat(250) } },
          })),
        );
      }
      const res = await fetch(
        `http://localhost:${durable.httpPort}/api/v1/projects/${PROJECT}/instances/${INSTANCE}/tables/durable/tablets`,
      );
      const [t] = ((await res.json()) as { tablets: TabletJson[] }).tablets;
      expect(t!.estimates).toEqual(['rowCount']);
      expect(t!.rowCount).toBeGreaterThanOrEqual(500);
      expect(t!.logicalBytes).toBeGreaterThan(500 * 1000);
      expect(t!.storedBytes).toBeLessThan(t!.logicalBytes / 2);
      const lines = await tabletsCommand('durable', durable.httpPort!);
      expect(lines[1]!.split(/\s{2,}/)[5]).toBe(`~${t!.rowCount}`);
      expect(lines[lines.length - 1]).toMatch(/^~ estimate: the durable engine counts a row once per SSTable and memtable/);
      await bigtable.close();
    } finally {
      await durable.stop();
    }
  });
});
