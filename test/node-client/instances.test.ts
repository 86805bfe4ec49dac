import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode, status } from '../harness/grpc-errors.js';
import { nodeClient } from '../harness/node-client.js';
import { startTabletop, type Target } from '../harness/targets.js';

/**
 * Instances, clusters and the node model through the official Node client,
 * against a tabletop server started as users start it, with `--nodes 5`.
 * (Google's emulator implements no instance admin: see the divergences
 * `instance-admin` and `unknown-instance`.)
 */
describe('instances, clusters and nodes through the Node client (tabletop)', () => {
  let target: Target;
  let bigtable: Bigtable;
  let http: string;

  beforeAll(async () => {
    target = await startTabletop({ args: ['--nodes', '5'] });
    bigtable = nodeClient(target);
    http = /HTTP: (http:\/\/\S+\/)/.exec(target.output())![1]!;
  });
  afterAll(async () => {
    await bigtable?.close();
    await target?.stop();
  });

  /** Split keys as the client must send them: as bytes (a string would be taken for base64). */
  const splitKeys = (chars: string): string[] => [...chars].map((c) => Buffer.from(c)) as unknown as string[];

  /** Tablets per node of each cluster, from the HTTP API. */
  async function tabletsPerNode(instance: string): Promise<Record<string, number[]>> {
    const res = await fetch(new URL(`api/v1/projects/p/instances/${instance}/nodes`, http));
    const body = (await res.json()) as { clusters: { clusterId: string; nodes: { tabletCount: number }[] }[] };
    return Object.fromEntries(body.clusters.map((c) => [c.clusterId, c.nodes.map((n) => n.tabletCount)]));
  }

  it('an instance nobody created does not exist (the client system test), and reads create nothing; a CreateTable creates it, with --nodes serve nodes', async () => {
    const fake = bigtable.instance('fake-instance');
    expect(await fake.exists()).toEqual([false]);
    await expectCode(fake.getTables(), status.NOT_FOUND);
    await expectCode(fake.getClusters(), status.NOT_FOUND);
    await expectCode(fake.table('t').getRows(), status.NOT_FOUND);
    await expectCode(fake.delete(), status.NOT_FOUND);
    expect(await fake.exists()).toEqual([false]);
    const [instances] = await bigtable.getInstances();
    expect(instances.map((i) => i.id)).not.toContain('fake-instance');

    const used = bigtable.instance('used-instance');
    await used.createTable('t', { families: ['cf'], splits: splitKeys('bcdefghij') });
    expect(await used.exists()).toEqual([true]);
    const [clusters] = await used.getClusters();
    expect(clusters.map((c) => [c.id, c.metadata?.serveNodes])).toEqual([['used-instance-c1', 5]]);
    expect(await tabletsPerNode('used-instance')).toEqual({ 'used-instance-c1': [2, 2, 2, 2, 2] });
  });

  it('setMetadata({ nodes }) rescales the modelled nodes, and the tablets spread onto them', async () => {
    const cluster = bigtable.instance('used-instance').cluster('used-instance-c1');
    await cluster.setMetadata({ nodes: 10 });
    expect((await cluster.getMetadata())[0].serveNodes).toBe(10);
    expect(await tabletsPerNode('used-instance')).toEqual({ 'used-instance-c1': Array(10).fill(1) });
    await cluster.setMetadata({ nodes: 3 });
    expect(await tabletsPerNode('used-instance')).toEqual({ 'used-instance-c1': [4, 3, 3] });
    expect(target.output()).toMatch(
      /moved tablet \S+ of projects\/p\/instances\/used-instance\/clusters\/used-instance-c1 from node \d to node \d: cluster resized from 10 to 3 nodes; node \d is gone/,
    );
  });

  it('creates an autoscaled cluster, changes its limits, switches it to manual scaling and back, and validates as the real service', async () => {
    const [instance, op] = await bigtable.createInstance('autoscaled', {
      displayName: 'Autoscaled',
      clusters: [{ id: 'autoscaled-c1', location: 'us-central1-b', minServeNodes: 2, maxServeNodes: 5, cpuUtilizationPercent: 50 }],
    });
    await op.promise();
    const cluster = instance.cluster('autoscaled-c1');
    const autoscaling = async () => {
      const [m] = await cluster.getMetadata();
      return { serveNodes: m.serveNodes, config: m.clusterConfig?.clusterAutoscalingConfig ?? null };
    };
    const config = (min: number, max: number, cpu: number) => ({
      autoscalingLimits: { minServeNodes: min, maxServeNodes: max },
      autoscalingTargets: { cpuUtilizationPercent: cpu, storageUtilizationGibPerNode: 2560 },
    });
    expect(await autoscaling()).toEqual({ serveNodes: 2, config: config(2, 5, 50) });

    // A higher minimum takes the node count with it at once.
    await cluster.setMetadata({ minServeNodes: 3, maxServeNodes: 6, cpuUtilizationPercent: 60 });
    expect(await autoscaling()).toEqual({ serveNodes: 3, config: config(3, 6, 60) });
    await instance.createTable('t', { families: ['cf'], splits: splitKeys('m') });
    expect(await tabletsPerNode('autoscaled')).toEqual({ 'autoscaled-c1': [1, 1, 0] });

    // Manual scaling: serve_nodes set, the autoscaling config gone.
    await cluster.setMetadata({ nodes: 4 });
    expect(await autoscaling()).toEqual({ serveNodes: 4, config: null });
    await cluster.setMetadata({ minServeNodes: 1, maxServeNodes: 2, cpuUtilizationPercent: 10 });
    expect(await autoscaling()).toEqual({ serveNodes: 2, config: config(1, 2, 10) });

    await expectCode(cluster.setMetadata({ minServeNodes: 1, maxServeNodes: 11, cpuUtilizationPercent: 50 }), status.INVALID_ARGUMENT);
    await expectCode(cluster.setMetadata({ minServeNodes: 1, maxServeNodes: 3, cpuUtilizationPercent: 90 }), status.INVALID_ARGUMENT);
    await expectCode(
      instance.createCluster('autoscaled-c2', { location: 'us-east1-b', minServeNodes: 4, maxServeNodes: 2, cpuUtilizationPercent: 50 }),
      status.INVALID_ARGUMENT,
    );
    expect(await autoscaling()).toEqual({ serveNodes: 2, config: config(1, 2, 10) });
  });
});
