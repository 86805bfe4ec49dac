import { describe, expect, it } from 'vitest';
import { type CpuProfile, windowShares } from './cpu-profile.js';

// root -> serve (server/a.js) -> record (insight/r.js) -> now (model/clock.js); root -> (idle)
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
    { id: 2, callFrame: frame('serve', 'file:///x/dist/server/a.js'), children: [3] },
    { id: 3, callFrame: frame('record', 'file:///x/dist/insight/r.js'), children: [4] },
    { id: 4, callFrame: frame('now', 'file:///x/dist/model/clock.js') },
    { id: 5, callFrame: frame('(idle)', '') },
  ],
  startTime: 1000,
  // Samples at 1010 (serve), 1020 (now, under insight), 1030 (idle), 1040 (record), 1050 (serve), 1060 (serve).
  samples: [2, 4, 5, 3, 2, 2],
  timeDeltas: [10, 10, 10, 10, 10, 10],
};

describe('windowShares', () => {
  it('counts busy time in the window, the part under the path with callees included, and self time per function', () => {
    const w = windowShares(profile, 1015, 1055, '/insight/');
    // 1020 now, 1030 idle (not busy), 1040 record, 1050 serve: 30 µs busy, 20 under insight.
    expect(w.busyMicros).toBe(30);
    expect(w.underMicros).toBe(20);
    expect(w.topSelf.map((f) => f.name)).toEqual(['now model/clock.js:1', 'record insight/r.js:1', 'serve server/a.js:1']);
  });

  it('leaves out samples outside the window and finds nothing under a path no frame has', () => {
    const w = windowShares(profile, 0, 1e9, '/nowhere/');
    expect(w.busyMicros).toBe(50);
    expect(w.underMicros).toBe(0);
    expect(w.topSelf[0]).toEqual({ name: 'serve server/a.js:1', micros: 30 });
  });
});
