import fc from 'fast-check';
import { it } from 'vitest';
import { opLog } from './op-arbitraries.js';
import { runLog } from './run-log.js';
import { openMemorySystem } from './systems.js';
it('probe', async () => {
  const logs = fc.sample(opLog(false, 60), { seed: 1, numRuns: 20 });
  const counts = new Map<string, number>();
  for (const log of logs) {
    const s = await openMemorySystem();
    const t = await runLog(s, log);
    await s.close();
    for (const line of t) {
      const m = /^\d+ (\w+): (\w+)/.exec(line);
      if (!m) continue;
      const k = `${m[1]} ${m[2]}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  console.log([...counts].sort().map(([k, v]) => `${k}: ${v}`).join('\n'));
  console.log(logs[3]!.ops.length);
  const s = await openMemorySystem(); const t = await runLog(s, logs[3]!); console.log(t.slice(0,30).join('\n').slice(0,6000));
});
