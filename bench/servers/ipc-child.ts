import { PerformanceObserver } from 'node:perf_hooks';

/**
 * The child side of transport/cpu-bench.ts's servers (forked, with an IPC
 * channel): once listening, the server sends {port}; then it answers "cpu"
 * with {cpu: process.cpuUsage(), gcMillis: time spent in GC pauses since it
 * reported its port}, and on "stop" runs `stop` and exits.
 */
export function reportToParent(port: number, stop: () => Promise<void>): void {
  let gcMillis = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMillis += e.duration;
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (m: unknown) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage(), gcMillis });
    else if (m === 'stop') void stop().then(() => process.exit(0));
  });
  process.send?.({ port });
}
