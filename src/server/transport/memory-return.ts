import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Gives the memory of released response buffers back to the system. A
 * server that held hundreds of MiB for slow readers has them as garbage once
 * the readers go, but a server with little else to do allocates too little
 * for V8 to collect them (external memory that shrinks starts no
 * collection): the RSS would stay at its peak until the next busy spell. A
 * full collection, at most once per `minIntervalMillis` and a second after
 * the release (so that one release of many streams costs one collection),
 * frees them; V8 then returns the backing stores to the allocator.
 *
 * The collection is V8's own gc(), exposed at run time with --expose-gc in a
 * fresh context (the flag changes nothing else); if that is refused, the
 * returner does nothing.
 */
export function memoryReturner(minIntervalMillis = 10_000): () => void {
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const run = (): void => {
    timer = undefined;
    last = performance.now();
    fullCollection();
  };
  return () => {
    if (timer !== undefined) return;
    const wait = Math.max(1000, last + minIntervalMillis - performance.now());
    timer = setTimeout(run, wait);
    timer.unref();
  };
}

let collect: (() => void) | null | undefined;

/** Runs a full garbage collection; false if V8's gc() is not available. */
export function fullCollection(): boolean {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  if (collect === null) return false;
  collect();
  return true;
}
