import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cbtWith } from '../harness/cbt.js';
import { expectedOn } from '../harness/divergences.js';
import { useTarget } from '../harness/suite.js';
import { startTabletop, selectedTargets, type Target } from '../harness/targets.js';
import { normalizeCbtOutput } from './transcript.js';

/**
 * cbt listinstances / listclusters. The instance and cluster that a server
 * invents for an instance a client merely uses are its own choice (display
 * name, cluster id, zone), so this checks the shape of the output and the
 * instance id rather than the full text.
 */
describe.each(selectedTargets())('cbt instance admin (%s)', (kind) => {
  const ctx = useTarget(kind);
  const project = `proj-${process.pid.toString(36)}`;
  const instance = `inst-${process.pid.toString(36)}`;

  it('lists the instance a table was created in, and its clusters', async () => {
    const created = await cbtWith(ctx.target, { project, instance }, 'createtable', 't');
    expect(normalizeCbtOutput(created, 0, 0)).toBe('');

    const instances = await cbtWith(ctx.target, { project, instance }, 'listinstances');
    const clusters = await cbtWith(ctx.target, { project, instance }, 'listclusters');
    if (kind === 'emulator') {
      expect([normalizeCbtOutput(instances, 0, 0), normalizeCbtOutput(clusters, 0, 0)]).toEqual(
        expectedOn(kind, [], 'instance-admin', [
          'exit 1: Getting list of instances: rpc error: code = Unimplemented',
          'exit 1: Getting list of clusters: rpc error: code = Unimplemented',
        ]),
      );
      return;
    }
    expect(instances.code).toBe(0);
    const instanceLines = instances.stdout.trimEnd().split('\n');
    expect(instanceLines.slice(0, 2).map((l) => l.split('\t')[0])).toEqual(['Instance Name', '-------------']);
    expect(instanceLines.slice(2).map((l) => l.split('\t')[0])).toContain(instance);

    expect(clusters.code).toBe(0);
    const clusterLines = clusters.stdout.trimEnd().split('\n');
    expect(clusterLines.slice(0, 2).map((l) => l.split('\t').filter((f) => f !== ''))).toEqual([
      ['Cluster Name', 'Zone', 'State'],
      ['------------', '----', '----'],
    ]);
    expect(clusterLines.length).toBeGreaterThanOrEqual(3);
    for (const line of clusterLines.slice(2)) {
      expect(line.split('\t').filter((f) => f !== '')).toEqual([
        expect.stringMatching(/^\S+$/),
        expect.stringMatching(/^\S+$/),
        expect.stringMatching(/^\S+ \(\d+ serve nodes\)$/),
      ]);
    }
  });
});

/**
 * The node model through cbt, on a tabletop server started with `--nodes 5`:
 * a cluster's serve nodes are its modelled nodes. (Google's emulator has no
 * instance admin: see the divergences `instance-admin` and `unknown-instance`.)
 */
describe('cbt clusters and nodes (tabletop --nodes 5)', () => {
  let target: Target;
  let http: string;
  beforeAll(async () => {
    target = await startTabletop({ args: ['--nodes', '5'] });
    http = /HTTP: (http:\/\/\S+\/)/.exec(target.output())![1]!;
  });
  afterAll(async () => {
    await target?.stop();
  });

  const run = (instance: string, ...args: string[]) => cbtWith(target, { instance }, ...args);
  /** "cluster zone state" per line of `cbt listclusters`, or the failure. */
  const clusters = async (instance: string): Promise<string[]> => {
    const out = await run(instance, 'listclusters');
    if (out.code !== 0) return [normalizeCbtOutput(out, 0, 0)];
    return out.stdout
      .trimEnd()
      .split('\n')
      .slice(2)
      .map((l) =>
        l
          .split('\t')
          .filter((f) => f !== '')
          .join(' '),
      );
  };
  const tabletsPerNode = async (instance: string): Promise<number[]> => {
    const body = (await (await fetch(new URL(`api/v1/projects/p/instances/${instance}/nodes`, http))).json()) as {
      clusters: { nodes: { tabletCount: number }[] }[];
    };
    return body.clusters[0]!.nodes.map((n) => n.tabletCount);
  };

  it('an instance first used by createtable gets --nodes serve nodes; updatecluster num-nodes rescales them and the tablets follow', async () => {
    expect(await clusters('dev')).toEqual(['exit 1: Getting list of clusters: rpc error: code = NotFound']);
    expect(normalizeCbtOutput(await run('dev', 'createtable', 't', 'splits=b,c,d,e,f,g,h,i,j'), 0, 0)).toBe('');
    expect(await clusters('dev')).toEqual(['dev-c1 local READY (5 serve nodes)']);
    expect(await tabletsPerNode('dev')).toEqual([2, 2, 2, 2, 2]);
    expect(normalizeCbtOutput(await run('dev', 'updatecluster', 'dev-c1', 'num-nodes=2'), 0, 0)).toBe('');
    expect(await clusters('dev')).toEqual(['dev-c1 local READY (2 serve nodes)']);
    expect(await tabletsPerNode('dev')).toEqual([5, 5]);
    expect(target.output()).toContain(
      'cluster projects/p/instances/dev/clusters/dev-c1 resized from 5 to 2 nodes: serve_nodes set by an admin request',
    );
  });

  it('createinstance and createcluster use the requested node counts; an instance nobody created is NOT_FOUND', async () => {
    expect(
      normalizeCbtOutput(await run('dev', 'createinstance', 'made-here', 'Made here', 'made-here-c1', 'us-central1-b', '4', 'SSD'), 0, 0),
    ).toBe('');
    expect(normalizeCbtOutput(await run('made-here', 'createcluster', 'made-here-c2', 'europe-west1-b', '1', 'HDD'), 0, 0)).toBe('');
    expect(await clusters('made-here')).toEqual([
      'made-here-c1 us-central1-b READY (4 serve nodes)',
      'made-here-c2 europe-west1-b READY (1 serve nodes)',
    ]);
    expect(normalizeCbtOutput(await run('made-here', 'deleteinstance', 'never-made'), 0, 0)).toBe(
      'exit 1: Deleting instance: rpc error: code = NotFound',
    );
    const listed = await run('dev', 'listinstances');
    expect(
      listed.stdout
        .trimEnd()
        .split('\n')
        .slice(2)
        .map((l) => l.split('\t')[0])
        .sort(),
    ).toEqual(['dev', 'made-here']);
  });
});
