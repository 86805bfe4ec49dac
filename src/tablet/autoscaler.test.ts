import { describe, expect, it } from 'vitest';
import { type AutoscaleInput, autoscale, storageTargetGib } from './autoscaler.js';

const GiB = 1024 ** 3;
const MINUTE = 60_000;

/** A cluster of 3 nodes (limits 1-10, CPU target 50%, SSD default storage target), idle, unchanged for an hour. */
const base: AutoscaleInput = {
  nodes: 3,
  minNodes: 1,
  maxNodes: 10,
  cpuTargetPercent: 50,
  storageTargetGibPerNode: 2560,
  recentServingMicrosPerSec: 0,
  recentWindowSeconds: 10,
  sustainedServingMicrosPerSec: 0,
  sustainedWindowSeconds: 110,
  storedBytes: 0,
  millisSinceResize: 60 * MINUTE,
  scaleDownDelayMillis: 10 * MINUTE,
};

describe('autoscale', () => {
  it('scales up at once to the nodes that bring CPU within the target, with the figures', () => {
    // 2.4 s of serving per second on 3 nodes: 80% each; at 50% that takes 5 nodes.
    const d = autoscale({ ...base, recentServingMicrosPerSec: 2.4e6, millisSinceResize: 0 });
    expect(d).toEqual({ nodes: 5, reason: 'CPU 80.0% of 3 nodes over the last 10 s (target 50%); 5 nodes bring it within target' });
  });

  it('never goes past the maximum, and says so', () => {
    expect(autoscale({ ...base, maxNodes: 4, recentServingMicrosPerSec: 9e6 })).toMatchObject({
      nodes: 4,
      reason: expect.stringContaining('(the maximum is 4)'),
    });
  });

  it('keeps its size when the load is exactly at the target', () => {
    expect(autoscale({ ...base, recentServingMicrosPerSec: 1.5e6, sustainedServingMicrosPerSec: 1.5e6 })).toEqual({ nodes: 3, reason: '' });
  });

  it('scales down only after the size has held for the delay, by at most 10% at a time, and only as far as the sustained load allows', () => {
    const idle = { ...base, nodes: 30, maxNodes: 100, minNodes: 10 };
    expect(autoscale({ ...idle, millisSinceResize: 9 * MINUTE })).toEqual({ nodes: 30, reason: '' });
    const d = autoscale(idle);
    expect(d.nodes).toBe(27);
    expect(d.reason).toMatch(
      /^CPU 0\.0% of 30 nodes over the last 110 s \(target 50%\) and storage 0\.00 GiB per node \(target 2560 GiB\): 10 nodes would do; scaling down by at most 10% of the nodes once the size has held for 600 s$/,
    );
    // The recent load is low but the last two minutes needed 25 nodes: no lower than that.
    expect(autoscale({ ...idle, sustainedServingMicrosPerSec: 12.4e6 }).nodes).toBe(27);
    expect(autoscale({ ...idle, sustainedServingMicrosPerSec: 14.2e6 }).nodes).toBe(29);
    // At least one node at a time, never below the minimum.
    expect(autoscale({ ...base, nodes: 2 }).nodes).toBe(1);
    expect(autoscale({ ...base, nodes: 2, minNodes: 2 })).toEqual({ nodes: 2, reason: '' });
  });

  it('keeps stored bytes per node within the storage target, whatever the CPU', () => {
    const d = autoscale({ ...base, nodes: 1, storedBytes: 6000 * GiB });
    expect(d).toEqual({ nodes: 3, reason: 'storage 6000.00 GiB per node (target 2560 GiB); 3 nodes bring it within target' });
    expect(autoscale({ ...base, nodes: 3, storedBytes: 6000 * GiB })).toEqual({ nodes: 3, reason: '' });
  });

  it('brings a node count outside changed limits back inside at once', () => {
    expect(autoscale({ ...base, nodes: 3, minNodes: 5 })).toMatchObject({ nodes: 5 });
    expect(autoscale({ ...base, nodes: 3, maxNodes: 2, millisSinceResize: 0 })).toMatchObject({ nodes: 2 });
  });

  it("uses the storage type's default storage target for 0", () => {
    expect([storageTargetGib(0, 'ssd'), storageTargetGib(0, 'hdd'), storageTargetGib(4000, 'ssd')]).toEqual([2560, 8192, 4000]);
  });
});
