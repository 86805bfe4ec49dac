import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { nodeClient } from '../harness/node-client.js';
import { assembleCells, rawReadRows, rawUnary } from '../harness/raw.js';

/**
 * Continuous materialized views end to end, on the durable server: created, listed, updated and deleted through
 * the Node client's generated instance admin client; read with ReadRows and SampleRowKeys naming
 * materialized_view_name; kept up to date as the client writes; the same after a restart.
 */

const PARENT = 'projects/p/instances/i';
const VIEW = `${PARENT}/materializedViews/by_region`;
const QUERY = "SELECT cf['region'] AS _key, COUNT(*) AS n, SUM(TO_INT64(cf['amount'])) AS total FROM sales GROUP BY 1";

const be64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

/** The view as ReadRows shows it: `key n=.. total=..` per row (cells are 8-byte big-endian INT64). */
async function readView(client: Bigtable): Promise<string[]> {
  const cells = assembleCells(await rawReadRows(client, { materializedViewName: VIEW }));
  const rows = new Map<string, string[]>();
  for (const c of cells) {
    const key = c.key.toString('utf8');
    rows.set(key, [...(rows.get(key) ?? []), `${c.family}:${c.qualifier.toString('utf8')}=${c.value.readBigInt64BE()}`]);
  }
  return [...rows].map(([k, v]) => `${k} ${v.join(' ')}`);
}

async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('continuous materialized views through the Node client, on the durable server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tabletop-mv-'));
  let server: RunningServer | undefined;
  let client: Bigtable | undefined;
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, maintains, restarts, updates and deletes a view', async () => {
    server = await startServer({ dataDir: dir, insight: false, httpPort: 0 });
    client = nodeClient(server);
    const instance = client.instance('i');
    const [table] = await instance.createTable('sales', { families: ['cf'] });
    const sale = (key: string, region: string, amount: number) => ({ key, data: { cf: { region, amount: be64(amount) } } });
    await table.insert([sale('s1', 'east', 10), sale('s2', 'east', 5), sale('s3', 'west', 7)]);

    const op = await rawUnary<{ latestResponse: { done?: boolean }; promise(): Promise<[{ name: string; query: string }]> }>(
      client,
      'BigtableInstanceAdminClient',
      'createMaterializedView',
      {
        parent: PARENT,
        materializedViewId: 'by_region',
        materializedView: { query: QUERY, deletionProtection: true },
      },
    );
    expect(op.latestResponse.done).toBe(true);
    const [created] = await op.promise();
    expect(created).toMatchObject({ name: VIEW, query: QUERY });
    // Built before the operation answered.
    expect(await readView(client)).toEqual(['east default:n=2 default:total=15', 'west default:n=1 default:total=7']);

    const bad = await rawUnary(client, 'BigtableInstanceAdminClient', 'createMaterializedView', {
      parent: PARENT,
      materializedViewId: 'limited',
      materializedView: { query: `${QUERY} LIMIT 1` },
    }).catch((e: unknown) => e as { code: number; details: string });
    expect(bad).toMatchObject({ code: 3, details: expect.stringMatching(/LIMIT/) });

    const got = await rawUnary<{ name: string; query: string; etag: string; deletionProtection: boolean }>(
      client,
      'BigtableInstanceAdminClient',
      'getMaterializedView',
      { name: VIEW },
    );
    expect(got).toMatchObject({ name: VIEW, query: QUERY, deletionProtection: true });
    const listed = await rawUnary<{ name: string }[]>(client, 'BigtableInstanceAdminClient', 'listMaterializedViews', { parent: PARENT });
    expect(listed.map((v) => v.name)).toEqual([VIEW]);
    const json = (await (await fetch(`http://localhost:${server.httpPort}/api/v1/projects/p/instances/i/materialized-views`)).json()) as {
      materializedViews: { materializedViewId: string; sourceTable: string; query: string }[];
    };
    expect(json.materializedViews).toMatchObject([{ materializedViewId: 'by_region', sourceTable: 'sales', query: QUERY }]);
    // The view's internal tables are not tables.
    const [tables] = await instance.getTables();
    expect(tables.map((t) => t.id)).toEqual(['sales']);

    // Writes through the client reach the view (eventually: maintenance is asynchronous).
    await table.insert([sale('s4', 'north', 1), sale('s1', 'west', 10)]);
    await table.row('s3').delete();
    await eventually(async () =>
      expect(await readView(client!)).toEqual([
        'east default:n=1 default:total=5',
        'north default:n=1 default:total=1',
        'west default:n=1 default:total=10',
      ]),
    );
    // A row the view's expressions fail on (TO_INT64 of 3 bytes) is left out, counted, and shown in the JSON API.
    await table.insert([{ key: 's9', data: { cf: { region: 'east', amount: Buffer.from([1, 2, 3]) } } }]);
    type Maintenance = {
      evaluationErrors: number;
      pendingRows: number;
      lastEvaluationError: { where: string; key: string; message: string };
    };
    await eventually(async () => {
      const one = (await (
        await fetch(`http://localhost:${server!.httpPort}/api/v1/projects/p/instances/i/materialized-views/by_region`)
      ).json()) as {
        materializedViewId: string;
        maintenance: Maintenance;
      };
      expect(one).toMatchObject({
        materializedViewId: 'by_region',
        maintenance: { evaluationErrors: 1, pendingRows: 0, lastEvaluationError: { where: 'source row', key: 's9' } },
      });
      expect(one.maintenance.lastEvaluationError.message).toMatch(/TO_INT64/);
    });
    await table.row('s9').delete();
    // GoogleSQL reads the view as a table of typed columns, key first, through prepareStatement / executeQuery.
    const [statement] = await instance.prepareStatement('SELECT _key, n, total FROM by_region WHERE total > 1 ORDER BY total DESC');
    const [sqlRows] = await instance.executeQuery(statement);
    expect(sqlRows.map((r) => [Buffer.from(r.get('_key') as Uint8Array).toString(), r.get('n'), r.get('total')])).toEqual([
      ['west', 1n, 10n],
      ['east', 1n, 5n],
    ]);
    const [counted] = await instance.executeQuery((await instance.prepareStatement('SELECT SUM(n) AS rows_in_view FROM by_region'))[0]);
    expect(counted.map((r) => r.get('rows_in_view'))).toEqual([3n]);
    const samples: { rowKey: Buffer }[] = await new Promise((resolve, reject) => {
      const out: { rowKey: Buffer }[] = [];
      client!
        .request({ client: 'BigtableClient', method: 'sampleRowKeys', reqOpts: { materializedViewName: VIEW } })
        .on('data', (d: { rowKey: Buffer }) => out.push(d))
        .on('error', reject)
        .on('end', () => resolve(out));
    });
    expect(samples.length).toBeGreaterThan(0);

    // A restart keeps the view, and maintenance goes on.
    await client.close();
    await server.stop();
    server = await startServer({ dataDir: dir, insight: false });
    client = nodeClient(server);
    expect(await readView(client)).toEqual([
      'east default:n=1 default:total=5',
      'north default:n=1 default:total=1',
      'west default:n=1 default:total=10',
    ]);
    await client
      .instance('i')
      .table('sales')
      .insert([sale('s5', 'east', 100)]);
    await eventually(async () => expect((await readView(client!))[0]).toBe('east default:n=2 default:total=105'));

    // Deletion protection, then the etag, as UpdateMaterializedView and DeleteMaterializedView check them.
    const refused = await rawUnary(client, 'BigtableInstanceAdminClient', 'deleteMaterializedView', { name: VIEW }).catch(
      (e: unknown) => e as { code: number },
    );
    expect(refused).toMatchObject({ code: 9 });
    await rawUnary(client, 'BigtableInstanceAdminClient', 'updateMaterializedView', {
      materializedView: { name: VIEW, deletionProtection: false },
      updateMask: { paths: ['deletion_protection'] },
    });
    const stale = await rawUnary(client, 'BigtableInstanceAdminClient', 'deleteMaterializedView', { name: VIEW, etag: got.etag }).catch(
      (e: unknown) => e as { code: number },
    );
    expect(stale).toMatchObject({ code: 10 });
    await rawUnary(client, 'BigtableInstanceAdminClient', 'deleteMaterializedView', { name: VIEW });
    const gone = await rawReadRows(client, { materializedViewName: VIEW }).catch((e: unknown) => e as { code: number });
    expect(gone).toMatchObject({ code: 5 });
  });
});
