import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { useDataDir } from './durable-server.js';

/**
 * Authorized views on the durable server: a view created and then updated through the official client's
 * generated admin client is there after a SIGKILL and a restart on the same data directory, with its subset,
 * etag and deletion protection, and still narrows reads and refuses writes outside it.
 */

const TABLE = `projects/${PROJECT}/instances/${INSTANCE}/tables/tenants`;

interface PView {
  name: string;
  etag: string;
  deletionProtection: boolean;
  subsetView: { rowPrefixes: Buffer[]; familySubsets: Record<string, { qualifiers: Buffer[]; qualifierPrefixes: Buffer[] }> };
}

describe('authorized views on the durable server', () => {
  const dir = useDataDir('tabletop-av-');

  it('survive a crash and a restart', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    const table = before.instance(INSTANCE).table('tenants');
    await table.create({ families: ['cf'] });
    await table.insert([
      { key: 'acme#1', data: { cf: { name: 'ann', secret: 'x' } } },
      { key: 'zeta#1', data: { cf: { name: 'bob' } } },
    ]);
    await adminCall(before, 'BigtableTableAdminClient', 'createAuthorizedView', {
      parent: TABLE,
      authorizedViewId: 'acme',
      authorizedView: { subsetView: { rowPrefixes: [Buffer.from('acme#')], familySubsets: { cf: { qualifiers: [Buffer.from('name')] } } } },
    });
    const [updated] = await adminCall<PView>(before, 'BigtableTableAdminClient', 'updateAuthorizedView', {
      authorizedView: { name: `${TABLE}/authorizedViews/acme`, deletionProtection: true },
      updateMask: { paths: ['deletion_protection'] },
    });
    await before.close();
    await first.kill9();

    const second = await dir.start();
    const after = nodeClient(second);
    try {
      const [got] = await adminCall<PView>(after, 'BigtableTableAdminClient', 'getAuthorizedView', {
        name: `${TABLE}/authorizedViews/acme`,
        view: 'FULL',
      });
      expect(got).toMatchObject({ name: updated!.name, etag: updated!.etag, deletionProtection: true });
      expect(got!.subsetView.rowPrefixes.map(String)).toEqual(['acme#']);
      const view = after.instance(INSTANCE).view('tenants', 'acme');
      const [rows] = await view.getRows();
      expect(rows.map((r) => [r.id, Object.keys(r.data.cf)])).toEqual([['acme#1', ['name']]]);
      await expect(view.insert({ key: 'zeta#2', data: { cf: { name: 'eve' } } })).rejects.toMatchObject({
        errors: [expect.objectContaining({ code: grpc.status.PERMISSION_DENIED })],
      });
      await expect(after.instance(INSTANCE).table('tenants').delete()).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    } finally {
      await after.close();
    }
  });
});
