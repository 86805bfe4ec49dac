import { describe, expect, it } from 'vitest';
import { expectCode, status } from '../harness/grpc-errors.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { useDataDir } from './durable-server.js';

/**
 * IAM policies on the durable server: policies set on an instance and a table through the official client are
 * there after a SIGKILL and a restart on the same data directory, with their etags (a read-modify-write with
 * the etag read before the crash succeeds, a stale one is ABORTED); a table deleted and created again after
 * the restart has no policy.
 */

const INSTANCE_NAME = `projects/${PROJECT}/instances/${INSTANCE}`;
const TABLE_NAME = `${INSTANCE_NAME}/tables/people`;

interface Policy {
  readonly bindings: { role: string; members: string[] }[];
  readonly etag: Buffer;
}

describe('IAM policies on the durable server', () => {
  const dir = useDataDir('tabletop-iam-');

  it('survive a crash and a restart, etags included, and go with their table', async () => {
    const first = await dir.start();
    const before = nodeClient(first);
    await before
      .instance(INSTANCE)
      .table('people')
      .create({ families: ['cf'] });
    const readers = [{ role: 'roles/bigtable.reader', members: ['user:ann@example.com', 'domain:example.org'] }];
    const admins = [{ role: 'roles/bigtable.admin', members: ['serviceAccount:ci@p.iam.gserviceaccount.com'] }];
    const [onTable] = await adminCall<Policy>(before, 'BigtableTableAdminClient', 'setIamPolicy', {
      resource: TABLE_NAME,
      policy: { bindings: readers },
    });
    const [onInstance] = await adminCall<Policy>(before, 'BigtableInstanceAdminClient', 'setIamPolicy', {
      resource: INSTANCE_NAME,
      policy: { bindings: admins },
    });
    await before.close();
    await first.kill9();

    const second = await dir.start();
    const after = nodeClient(second);
    try {
      const [table] = await adminCall<Policy>(after, 'BigtableTableAdminClient', 'getIamPolicy', { resource: TABLE_NAME });
      expect(table).toMatchObject({ bindings: readers, etag: onTable!.etag });
      const [instance] = await adminCall<Policy>(after, 'BigtableInstanceAdminClient', 'getIamPolicy', { resource: INSTANCE_NAME });
      expect(instance).toMatchObject({ bindings: admins, etag: onInstance!.etag });

      const [changed] = await adminCall<Policy>(after, 'BigtableTableAdminClient', 'setIamPolicy', {
        resource: TABLE_NAME,
        policy: { bindings: [], etag: onTable!.etag },
      });
      expect(Buffer.from(changed!.etag).equals(Buffer.from(onTable!.etag))).toBe(false);
      await expectCode(
        adminCall(after, 'BigtableTableAdminClient', 'setIamPolicy', {
          resource: TABLE_NAME,
          policy: { bindings: readers, etag: onTable!.etag },
        }),
        status.ABORTED,
      );

      await adminCall(after, 'BigtableTableAdminClient', 'setIamPolicy', { resource: TABLE_NAME, policy: { bindings: readers } });
      await after.instance(INSTANCE).table('people').delete();
      await after
        .instance(INSTANCE)
        .table('people')
        .create({ families: ['cf'] });
      const [fresh] = await adminCall<Policy>(after, 'BigtableTableAdminClient', 'getIamPolicy', { resource: TABLE_NAME });
      expect(fresh!.bindings ?? []).toEqual([]);
    } finally {
      await after.close();
    }
  });
});
