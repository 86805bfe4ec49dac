import { describe, expect, it } from 'vitest';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { useDataDir } from './durable-server.js';

/**
 * Logical views on the durable server: a view created through the official client's generated admin client is
 * there after a SIGKILL and a restart on the same data directory, with its etag, and reads as a table through SQL.
 */

const PARENT = `projects/${PROJECT}/instances/${INSTANCE}`;

describe('logical views on the durable server', () => {
  const dir = useDataDir('tabletop-lv-');

  it('survive a crash and a restart', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    const table = before.instance(INSTANCE).table('people');
    await table.create({ families: ['cf'] });
    await table.insert([
      { key: 'p1', data: { cf: { name: 'ann' } } },
      { key: 'p2', data: { cf: { name: 'bob' } } },
    ]);
    const [created] = await adminCall<{ name: string; etag: string }>(before, 'BigtableInstanceAdminClient', 'createLogicalView', {
      parent: PARENT,
      logicalViewId: 'names',
      logicalView: { query: "SELECT _key, SAFE_CONVERT_BYTES_TO_STRING(cf['name']) AS name FROM people", deletionProtection: true },
    });
    await before.close();
    await first.kill9();

    const second = await dir.start();
    const after = nodeClient(second);
    try {
      const [views] = await adminCall<{ name: string; etag: string; deletionProtection: boolean }[]>(
        after,
        'BigtableInstanceAdminClient',
        'listLogicalViews',
        { parent: PARENT },
      );
      expect(views).toEqual([expect.objectContaining({ name: created!.name, etag: created!.etag, deletionProtection: true })]);
      const [statement] = await after.instance(INSTANCE).prepareStatement("SELECT name FROM names WHERE _key = 'p2'");
      const [rows] = await after.instance(INSTANCE).executeQuery(statement);
      expect(rows.map((r) => r.get('name'))).toEqual(['bob']);
    } finally {
      await after.close();
    }
  });
});
