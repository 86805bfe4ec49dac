/**
 * Tablets seen through the official Node client, the JSON API, the
 * `tabletop tablets` command and ListHotTablets, on a real server started in
 * this process with small split thresholds.
 */
import { randomBytes } from 'node:crypto';
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
  target = { kind: 'tabletop', address: server.address, host: server.host, port: server.port, output: () => logs.join('\n'), stop: () => server.stop() };
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
  node: number;
  sizeBytes: number;
  singleRowHotspot: { key: { printable: string }; share: number } | null;
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

    const out: string[] = [];
    const code = await runCli(['tablets', id, '--project', PROJECT, '--instance', INSTANCE, '--server', `localhost:${server.httpPort}`], {
      stdout: (l) => void out.push(l),
      stderr: (l) => void out.push(l),
      onSignal: () => () => undefined,
      exitNow: () => undefined,
    });
    expect(code).toBe(0);
    const lines = out.join('\n').split('\n');
    expect(lines[0]).toMatch(/^TABLET\s+START KEY\s+END KEY\s+SIZE\s+ROWS\s+NODE/);
    // Splits may still be going on: at least the tablets seen a moment ago.
    expect(lines.length - 1).toBeGreaterThanOrEqual(tablets.length);
    expect(lines[1]).toContain('(start)');
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
    const listed = await unaryCall<{ hotTablets: { name: string; tableName: string; startKey: string; endKey: string; nodeCpuUsagePercent: number }[] }>(
      clients.instanceAdmin,
      'ListHotTablets',
      { parent: `projects/${PROJECT}/instances/${INSTANCE}/clusters/-` },
    );
    clients.close();
    const mine = listed.hotTablets.filter((h) => h.tableName.endsWith(`/tables/${id}`));
    expect(mine.length).toBeGreaterThan(0);
    const cpu = listed.hotTablets.map((h) => h.nodeCpuUsagePercent);
    expect([...cpu].sort((a, b) => b - a)).toEqual(cpu);
    expect(mine[0]!.name).toMatch(new RegExp(`^projects/${PROJECT}/instances/${INSTANCE}/clusters/[^/]+/hotTablets/`));
    expect(mine.some((h) => h.startKey <= hot && (h.endKey === '' || hot < h.endKey))).toBe(true);
    const res = await fetch(`http://localhost:${server.httpPort}/api/v1/projects/${PROJECT}/instances/${INSTANCE}/hot-tablets`);
    const { hotTablets: viaApi } = (await res.json()) as { hotTablets: { table: string; nodeCpuUsagePercent: number }[] };
    expect(viaApi.length).toBeGreaterThan(0);
    const nodes = await api<{ nodes: { node: number; tablets: string[] }[] }>('/nodes');
    expect(nodes.nodes).toHaveLength(3);
    await bigtable.close();
  });
});
