/**
 * Reading a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` JSON) over
 * a window of its clock: how much of the thread's busy time ran in code under
 * a path (the sample's own frame or any caller of it: "inclusive"), and which
 * functions took the most time themselves. It attributes a component's cost
 * where comparing two servers cannot: the share does not depend on the other
 * process's luck (its JIT, heap, group commits). What it cannot see: work the
 * component causes elsewhere (garbage collection of what it allocated, other
 * threads, kernel time of syscalls it triggers under other frames).
 */

export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface WindowShares {
  /** Microseconds of samples in the window that were not idle. */
  readonly busyMicros: number;
  /** Of those, the microseconds whose stack holds a frame with `urlPart` in its URL. */
  readonly underMicros: number;
  /** Self time per function (name, file and line), most first. */
  readonly topSelf: readonly { readonly name: string; readonly micros: number }[];
}

/**
 * The busy time of the samples taken in [fromMicros, toMicros] of the
 * profile's clock, the part of it under `urlPart`, and the `top` functions by
 * self time. Each sample weighs the time until the next one (the last, the
 * time since the one before).
 */
export function windowShares(profile: CpuProfile, fromMicros: number, toMicros: number, urlPart: string, top = 10): WindowShares {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const under = new Map<number, boolean>();
  const isUnder = (id: number): boolean => {
    const known = under.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const result = node !== undefined && (node.callFrame.url.includes(urlPart) || (up !== undefined && isUnder(up)));
    under.set(id, result);
    return result;
  };
  const self = new Map<string, number>();
  let busy = 0;
  let inside = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromMicros || t > toMicros) continue;
    const id = profile.samples[i]!;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') continue;
    const weight = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    busy += weight;
    if (isUnder(id)) inside += weight;
    const file = frame.url.split('/').slice(-2).join('/');
    const name = `${frame.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${frame.lineNumber + 1}`}`;
    self.set(name, (self.get(name) ?? 0) + weight);
  }
  const topSelf = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => ({ name, micros }));
  return { busyMicros: busy, underMicros: inside, topSelf };
}
