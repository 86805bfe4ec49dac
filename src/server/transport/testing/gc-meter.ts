import { PerformanceObserver } from 'node:perf_hooks';

/** Total time this process has spent in garbage collection pauses since gcMeter() was first called (ms). */
let total = 0;
let observer: PerformanceObserver | undefined;

export function gcMeter(): () => number {
  if (observer === undefined) {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) total += e.duration;
    });
    observer.observe({ entryTypes: ['gc'] });
  }
  return () => total;
}
