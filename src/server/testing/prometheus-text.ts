/**
 * A reader of the Prometheus text exposition format (0.0.4) for tests: every
 * sample line parsed into its name, labels and value, and the TYPE of each
 * metric family. Throws on a line it cannot read, so that a malformed
 * exposition fails the test that reads it.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** Metric family name → counter, gauge, histogram, summary or untyped. */
  readonly types: ReadonlyMap<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const l = LABEL.exec(body);
      if (l === null) throw new Error(`bad labels in ${JSON.stringify(line)}`);
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    // Prometheus reads floats as Go's ParseFloat does: NaN in any case (prom-client writes "Nan").
    if (Number.isNaN(value) && m[3]!.toLowerCase() !== 'nan') throw new Error(`bad value in ${JSON.stringify(line)}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

/** The samples of one name whose labels include `labels`. */
export function samplesOf(e: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/**
 * Checks every histogram of the exposition: per series, `le` buckets ascend,
 * their counts never fall, the +Inf bucket equals _count. Returns the series
 * checked (by their labels without `le`).
 */
export function checkHistograms(e: Exposition): string[] {
  const checked: string[] = [];
  for (const [family, type] of e.types) {
    if (type !== 'histogram') continue;
    const bySeries = new Map<string, Sample[]>();
    for (const s of samplesOf(e, `${family}_bucket`)) {
      const { le: _le, ...rest } = s.labels;
      const key = JSON.stringify(rest);
      bySeries.set(key, [...(bySeries.get(key) ?? []), s]);
    }
    for (const [key, buckets] of bySeries) {
      const bounds = buckets.map((b) => (b.labels.le === '+Inf' ? Infinity : Number(b.labels.le)));
      for (let i = 1; i < buckets.length; i++) {
        if (!(bounds[i]! > bounds[i - 1]!)) throw new Error(`${family}${key}: bucket bounds not ascending at ${bounds[i]}`);
        if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${family}${key}: bucket counts fall at le=${bounds[i]}`);
      }
      if (bounds[bounds.length - 1] !== Infinity) throw new Error(`${family}${key}: no +Inf bucket`);
      const count = e.samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key);
      if (count?.value !== buckets[buckets.length - 1]!.value) throw new Error(`${family}${key}: +Inf bucket is not _count`);
      checked.push(`${family}${key}`);
    }
  }
  return checked;
}
