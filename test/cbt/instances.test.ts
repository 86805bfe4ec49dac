import { describe, expect, it } from 'vitest';
import { cbtWith } from '../harness/cbt.js';
import { expectedOn } from '../harness/divergences.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';
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
      expect(line.split('\t').filter((f) => f !== '')).toEqual([expect.stringMatching(/^\S+$/), expect.stringMatching(/^\S+$/), expect.stringMatching(/^\S+ \(\d+ serve nodes\)$/)]);
    }
  });
});
