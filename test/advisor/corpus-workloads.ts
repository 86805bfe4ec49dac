/**
 * The schema advisor's corpus: synthetic workloads, one or more per rule of
 * RULE_IDS, and the schema guide's good designs (their keys made by the
 * row-key builder, src/keys), each in an instance of its own (the
 * instance-wide rules, too-many-tables and the node part of hot-tablet, then
 * judge each workload alone). A workload creates its table(s) and loads them
 * (`setup`), then sends its traffic (`traffic`, paced over TRAFFIC_MILLIS,
 * all workloads at once) through the official Node client. corpus.test.ts
 * asks the advice route about each and scores the findings.
 */
import type { Instance, Table } from '@google-cloud/bigtable';
import { integer, isoTimestamp, keySchema, reversedDomain, reversedTimestamp, salt, string, toClientRange } from '../../src/keys/index.js';
import type { RuleId, Severity } from '../../src/insight/advisor/types.js';
import { seededRandom } from '../../src/testing/random.js';
import { paced, writeRows } from '../insight/insight-harness.js';

/** How long every workload's traffic runs (all at once). */
export const TRAFFIC_MILLIS = 7_000;

export interface Expected {
  readonly rule: RuleId;
  /** The least severity the finding must have. */
  readonly severity: Severity;
}

export interface Workload {
  /** The corpus entry's name (and its instance's id). */
  readonly name: string;
  /** What the keys look like, for the report. */
  readonly example: string;
  /** The table advice is asked for. */
  readonly table: string;
  /** The findings it must get; empty for a good design, which must get no warning or danger. */
  readonly expect: readonly Expected[];
  setup(instance: Instance): Promise<Table>;
  traffic?(table: Table): Promise<unknown>;
}

/** Good designs keep one version a cell (a GC policy), as the schema guide says. */
const ONE_VERSION = [{ name: 'cf', rule: { versions: 1 } }];
const T0 = Date.parse('2023-05-01T12:00:00Z');
const pad = (n: number, w: number) => String(n).padStart(w, '0');

async function create(instance: Instance, id: string, options: { families?: unknown; splits?: string[] } = {}): Promise<Table> {
  // Split keys go as bytes: the client passes strings on to protobuf, which reads them as base64.
  const splits = options.splits?.map((k) => Buffer.from(k));
  const [table] = await instance.createTable(id, { families: options.families ?? ONE_VERSION, ...(splits ? { splits } : {}) } as never);
  return table;
}

/** A setup that creates table `id` (one version a cell) and writes a cell in each row of `keys`, 2,000 rows a request. */
function withRows(id: string, keys: () => readonly string[], options: { families?: unknown; splits?: string[] } = {}): Workload['setup'] {
  return async (instance) => {
    const table = await create(instance, id, options);
    const all = keys();
    for (let i = 0; i < all.length; i += 2_000) await writeRows(table, all.slice(i, i + 2_000));
    return table;
  };
}

/** Reads rows by ranges of the official client (each range one read op of the recording). */
async function readRanges(table: Table, ranges: { start: string; end: string | undefined }[], limit?: number): Promise<number> {
  const [rows] = await table.getRows({ ranges: ranges.map(toClientRange) as never, ...(limit === undefined ? {} : { limit }) });
  return rows.length;
}

/** Random (version 4) UUIDs from a seeded generator, so that every run writes the same keys. */
function uuids(seed: number): () => string {
  const r = seededRandom(seed);
  return () => {
    const b = Buffer.from(Array.from({ length: 16 }, () => Math.floor(r() * 256)));
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
}

/** Runs `step` every `every` ms over the traffic phase. */
const during = (every: number, step: (i: number) => Promise<unknown>) => paced(TRAFFIC_MILLIS, every, step);

// ---- the good designs (keys by the row-key builder) ----

const readings = keySchema({ delimiter: '#' }, [string('sensor'), isoTimestamp('at')]);
const SENSORS = Array.from({ length: 24 }, (_, i) => `sensor${pad(i * 37 + 100, 3)}`);

const goodSensors: Workload = {
  name: 'good-sensor-time',
  example: readings.encode({ sensor: 'sensor123', at: T0 }),
  table: 'readings',
  expect: [],
  // An hour of history: every sensor each minute.
  setup: withRows('readings', () =>
    Array.from({ length: 60 }, (_, m) => SENSORS.map((sensor) => readings.encode({ sensor, at: T0 + m * 60_000 }))).flat(),
  ),
  async traffic(table) {
    // Every sensor reports each second (time by time, sensors in turn); dashboards read a sensor's last minutes.
    await during(200, async (i) => {
      const at = T0 + 3_600_000 + i * 1000;
      await writeRows(
        table,
        SENSORS.map((sensor) => readings.encode({ sensor, at })),
      );
      const sensor = SENSORS[i % SENSORS.length]!;
      await readRanges(table, [readings.range({ sensor, at: { from: T0 + 600_000, to: T0 + 1_800_000 } })]);
    });
  },
};

const pages = keySchema({ delimiter: '#' }, [reversedDomain('site'), string('path')]);
const SITES = [
  'www.example.com',
  'shop.example.com',
  'api.example.com',
  'en.wikipedia.org',
  'de.wikipedia.org',
  'docs.github.io',
  'static.cdn.net',
  'news.bbc.co.uk',
];

const goodDomains: Workload = {
  name: 'good-reversed-domains',
  example: pages.encode({ site: 'www.example.com', path: '/index.html' }),
  table: 'pages',
  expect: [],
  // Crawled in no order.
  setup: withRows('pages', () => {
    const r = seededRandom(11);
    return SITES.flatMap((site) => Array.from({ length: 25 }, (_, i) => pages.encode({ site, path: `/page/${pad(i, 3)}.html` }))).sort(
      () => r() - 0.5,
    );
  }),
  async traffic(table) {
    const r = seededRandom(12);
    await during(150, async (i) => {
      const site = SITES[Math.floor(r() * SITES.length)]!;
      await writeRows(table, [pages.encode({ site, path: `/page/${pad(Math.floor(r() * 25), 3)}.html` })]);
      const domain = ['example.com', 'wikipedia.org', 'github.io'][i % 3]!;
      await readRanges(table, pages.ranges({ site: { subdomainsOf: domain } }), 20);
    });
  },
};

const salted = keySchema({ delimiter: '#' }, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')]);

const goodSalted: Workload = {
  name: 'good-salted',
  example: salted.encode({ sensor: 'sensor123', at: T0 }),
  table: 'salted',
  expect: [],
  setup: withRows('salted', () =>
    SENSORS.flatMap((sensor) => Array.from({ length: 10 }, (_, k) => salted.encode({ sensor, at: T0 + k * 60_000 }))),
  ),
  async traffic(table) {
    // Even writes over the sensors (so over the buckets); a fan-out read of the latest rows of every bucket.
    await during(200, async (i) => {
      await writeRows(
        table,
        SENSORS.map((sensor) => salted.encode({ sensor, at: T0 + 3_600_000 + i * 1000 })),
      );
      if (i % 4 === 0) await readRanges(table, salted.ranges({}), 40);
    });
  },
};

const accounts = keySchema({ delimiter: '#' }, [string('tenant'), string('kind'), integer('id', 6)]);
const TENANTS = Array.from({ length: 30 }, (_, i) => `tenant${pad(i * 13 + 7, 3)}`);

const goodTenants: Workload = {
  name: 'good-tenant-prefix',
  example: accounts.encode({ tenant: 'tenant042', kind: 'user', id: 17 }),
  table: 'accounts',
  expect: [],
  setup: withRows('accounts', () =>
    TENANTS.flatMap((tenant) => Array.from({ length: 8 }, (_, id) => accounts.encode({ tenant, kind: 'user', id }))),
  ),
  async traffic(table) {
    const r = seededRandom(13);
    await during(150, async () => {
      const tenant = TENANTS[Math.floor(r() * TENANTS.length)]!;
      await writeRows(table, [accounts.encode({ tenant, kind: 'user', id: Math.floor(r() * 8) })]);
      await readRanges(table, [accounts.range({ tenant, kind: 'user' })]);
    });
  },
};

const feed = keySchema({ delimiter: '#' }, [string('user'), reversedTimestamp('at')]);
const USERS = Array.from({ length: 20 }, (_, i) => `user${pad(i * 7 + 3, 4)}`);

const goodLatestFirst: Workload = {
  name: 'good-latest-first',
  example: feed.encode({ user: 'user0003', at: T0 }),
  table: 'feed',
  expect: [],
  setup: withRows('feed', () => USERS.flatMap((user) => Array.from({ length: 10 }, (_, k) => feed.encode({ user, at: T0 + k * 60_000 })))),
  async traffic(table) {
    // Posts arrive from every user; a user's feed reads their 10 latest (the start of their prefix).
    await during(200, async (i) => {
      await writeRows(
        table,
        USERS.filter((_, u) => (u + i) % 2 === 0).map((user) => feed.encode({ user, at: T0 + 3_600_000 + i * 1000 })),
      );
      await readRanges(table, [feed.range({ user: USERS[i % USERS.length]! })], 10);
    });
  },
};

const oneSensor: Workload = {
  name: 'good-one-sensor',
  example: readings.encode({ sensor: 'sensor123', at: T0 }),
  table: 'one-sensor',
  expect: [],
  setup: withRows('one-sensor', () => Array.from({ length: 30 }, (_, k) => readings.encode({ sensor: 'sensor123', at: T0 + k * 1000 }))),
  async traffic(table) {
    // A table that so far holds one sensor's readings, in time order: its keys grow, within that sensor only.
    await during(200, (i) => writeRows(table, [readings.encode({ sensor: 'sensor123', at: T0 + 60_000 + i * 1000 })]));
  },
};

const sessions = keySchema({ delimiter: '#' }, [string('session')]);
const goodHashedPointReads: Workload = {
  name: 'good-hashed-point-reads',
  example: 'b1946ac9-2492-4d34-9c7d-… (read by exact key)',
  table: 'sessions',
  expect: [],
  setup: withRows('sessions', () => Array.from({ length: 8_000 }, uuids(19)).map((session) => sessions.encode({ session }))),
  async traffic(table) {
    // Sessions are looked up by their id only: hashed keys are the right design for that.
    const uuid = uuids(19);
    await during(100, async () => {
      const session = uuid();
      await writeRows(table, [sessions.encode({ session })]);
      await table.row(sessions.encode({ session })).get();
    });
  },
};

export const GOOD_DESIGNS: readonly Workload[] = [
  goodSensors,
  goodDomains,
  goodSalted,
  goodTenants,
  goodLatestFirst,
  oneSensor,
  goodHashedPointReads,
];

// ---- the anti-patterns, one or more per rule ----

const timestampIso: Workload = {
  name: 'timestamp-leading-iso',
  example: '2023-05-01T12:00:00Z#sensor123',
  table: 'events-iso',
  expect: [{ rule: 'timestamp-leading-key', severity: 'warning' }],
  setup: withRows('events-iso', () =>
    Array.from({ length: 60 }, (_, i) => `${new Date(T0 + i * 1000).toISOString().replace('.000', '')}#sensor${pad(i % 12, 3)}`),
  ),
  async traffic(table) {
    // Readings arrive in time order: each batch the newest keys.
    await during(100, (i) =>
      writeRows(
        table,
        Array.from({ length: 4 }, (_, k) => `${new Date(T0 + 60_000 + (i * 4 + k) * 250).toISOString()}#sensor${pad((i + k) % 12, 3)}`),
      ),
    );
  },
};

const timestampEpoch: Workload = {
  name: 'timestamp-leading-epoch',
  example: '1682942400000#click#user42',
  table: 'clicks',
  expect: [{ rule: 'timestamp-leading-key', severity: 'warning' }],
  setup: withRows('clicks', () => Array.from({ length: 60 }, (_, i) => `${T0 + i * 137}#click#user${i % 17}`)),
  async traffic(table) {
    await during(100, (i) =>
      writeRows(
        table,
        Array.from({ length: 3 }, (_, k) => `${T0 + 100_000 + (i * 3 + k) * 37}#click#user${(i + k) % 17}`),
      ),
    );
  },
};

const latestFirstLeading: Workload = {
  name: 'timestamp-leading-reversed',
  example: '9223370353912375807#event#17 (MAX - t first)',
  table: 'timeline',
  expect: [{ rule: 'timestamp-leading-key', severity: 'warning' }],
  setup: withRows('timeline', () =>
    Array.from({ length: 60 }, (_, i) => `${9_223_372_036_854_775_807n - BigInt(T0 + i * 1000)}#event#${i % 23}`),
  ),
  async traffic(table) {
    // Latest first, but nothing before the time: each new event is the smallest key, at the start of the table.
    await during(100, (i) => writeRows(table, [`${9_223_372_036_854_775_807n - BigInt(T0 + 60_000 + i * 100)}#event#${i % 23}`]));
  },
};

const sequential: Workload = {
  name: 'sequential-ids',
  example: 'order#00000123',
  table: 'orders',
  expect: [{ rule: 'sequential-key', severity: 'warning' }],
  setup: withRows('orders', () => Array.from({ length: 50 }, (_, i) => `order#${pad(i, 8)}`)),
  async traffic(table) {
    let n = 50;
    await during(100, () =>
      writeRows(
        table,
        Array.from({ length: 5 }, () => `order#${pad(n++, 8)}`),
      ),
    );
  },
};

const hashed: Workload = {
  name: 'hashed-uuid-range-reads',
  example: '0f8fad5b-d9cb-469f-a165-70867728950e',
  table: 'documents',
  expect: [{ rule: 'hashed-key', severity: 'warning' }],
  // Enough rows that the recording's key buckets (at most 1,000) hold several each, as on a production table.
  setup: withRows('documents', () => Array.from({ length: 8_000 }, uuids(17))),
  async traffic(table) {
    // The application wants ranges of related documents: 50-row scans from a random point.
    const uuid = uuids(18);
    await during(150, async () => {
      await writeRows(table, [uuid()]);
      await readRanges(table, [{ start: uuid(), end: undefined }], 50);
    });
  },
};

const unpadded: Workload = {
  name: 'unpadded-numbers',
  example: 'item#7, item#12, item#100',
  table: 'items',
  expect: [{ rule: 'unpadded-number', severity: 'info' }],
  setup: withRows('items', () => Array.from({ length: 200 }, (_, i) => `item#${i + 1}`)),
};

const longKeys: Workload = {
  name: 'long-keys',
  example: 'report#…3.8 KB of path…',
  table: 'reports',
  expect: [{ rule: 'long-key', severity: 'warning' }],
  setup: withRows('reports', () => {
    const path = Array.from({ length: 120 }, (_, i) => `section-${pad(i, 3)}-of-the-annual-report`).join('/');
    return Array.from({ length: 40 }, (_, i) => `report#${pad(i, 4)}#${path}`.slice(0, 3_800));
  }),
};

const binary: Workload = {
  name: 'non-printable-keys',
  example: '\\x00\\x00\\x01\\x88\\xdb\\x2c\\xe4\\x00…',
  table: 'blobs',
  expect: [{ rule: 'non-printable-key', severity: 'info' }],
  async setup(instance) {
    const table = await create(instance, 'blobs');
    const r = seededRandom(14);
    const keys = Array.from({ length: 200 }, (_, i) => {
      const b = Buffer.alloc(12);
      b.writeBigUInt64BE(BigInt(T0 + i * 1_000_003));
      b.writeUInt32BE(Math.floor(r() * 2 ** 32), 8);
      return b;
    });
    await table.insert(keys.map((key) => ({ key, data: { cf: { q: 'v'.repeat(32) } } })) as never);
    return table;
  },
};

const FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy'];
const pii: Workload = {
  name: 'pii-emails',
  example: 'alice.smith@example.com#orders',
  table: 'customers',
  expect: [{ rule: 'pii-in-key', severity: 'warning' }],
  setup: withRows('customers', () =>
    FIRST.flatMap((f, i) => ['smith', 'jones', 'brown', 'lee'].map((l) => `${f}.${l}${i}@example.com#orders`)),
  ),
};

const phones: Workload = {
  name: 'pii-phone-numbers',
  example: '+14155550123#calls#2023-05-01',
  table: 'calls',
  expect: [{ rule: 'pii-in-key', severity: 'warning' }],
  setup: withRows('calls', () =>
    Array.from({ length: 40 }, (_, i) => `+1415555${pad(1000 + i * 37, 4)}#calls#2023-05-${pad((i % 28) + 1, 2)}`),
  ),
};

const hotStatusRow: Workload = {
  name: 'hot-row-status',
  example: 'status#current (overwritten by every worker)',
  table: 'jobs',
  expect: [{ rule: 'hot-row', severity: 'warning' }],
  setup: withRows('jobs', () => [...Array.from({ length: 60 }, (_, i) => `job#${pad(i, 5)}`), 'status#current']),
  async traffic(table) {
    // Every worker writes its progress into one row (and its own job row now and then).
    await during(30, (i) => writeRows(table, i % 5 === 0 ? ['status#current', `job#${pad(i % 60, 5)}`] : ['status#current']));
  },
};

const hotRow: Workload = {
  name: 'hot-row-counter',
  example: 'counter#pageviews (incremented)',
  table: 'stats',
  expect: [{ rule: 'hot-row', severity: 'warning' }],
  setup: withRows('stats', () => [...Array.from({ length: 100 }, (_, i) => `page#${pad((i * 7919) % 1000, 4)}`), 'counter#pageviews']),
  async traffic(table) {
    const row = table.row('counter#pageviews');
    const until = Date.now() + TRAFFIC_MILLIS;
    const increments = async () => {
      while (Date.now() < until) await row.increment('cf:n', 1);
    };
    await Promise.all([increments(), increments(), during(250, (i) => writeRows(table, [`page#${pad((i * 7919) % 1000, 4)}`]))]);
  },
};

const families: Workload = {
  name: 'too-many-families',
  example: '100 families f000 … f099 (the most a table may have)',
  table: 'wide',
  expect: [{ rule: 'too-many-families', severity: 'warning' }],
  async setup(instance) {
    const table = await create(instance, 'wide', {
      families: Array.from({ length: 100 }, (_, i) => ({ name: `f${pad(i, 3)}`, rule: { versions: 1 } })),
    });
    await table.insert(
      Array.from({ length: 20 }, (_, i) => ({ key: `row#${pad(i, 3)}`, data: { f000: { q: 'v' }, [`f${pad(i, 3)}`]: { q: 'v' } } })),
    );
    return table;
  },
};

const tables: Workload = {
  name: 'too-many-tables',
  example: 'events_2023_01 … events_2023_12',
  table: 'events_2023_01',
  expect: [{ rule: 'too-many-tables', severity: 'warning' }],
  async setup(instance) {
    const all = await Promise.all(Array.from({ length: 12 }, (_, m) => create(instance, `events_2023_${pad(m + 1, 2)}`)));
    await Promise.all(
      all.map((t, m) =>
        writeRows(
          t,
          Array.from({ length: 10 }, (_, d) => `device${pad(d, 3)}#2023-${pad(m + 1, 2)}-01`),
        ),
      ),
    );
    return all[0]!;
  },
};

/** The large-row rule's sizes as the corpus server lowers them (Google's 100 MB cannot be written in a test). */
export const LOWERED_THRESHOLDS = { largeRowBytes: 2e6, largeRowDangerBytes: 20e6, largeCellBytes: 1e6 };

const largeRow: Workload = {
  name: 'large-row',
  example: 'doc#0001: 3 cells of 1.2 MB',
  table: 'docs',
  expect: [{ rule: 'large-row', severity: 'warning' }],
  async setup(instance) {
    const table = await withRows('docs', () => Array.from({ length: 30 }, (_, i) => `doc#${pad(i + 2, 4)}`))(instance);
    const big = Buffer.alloc(1_200_000, 7);
    for (const q of ['a', 'b', 'c']) await table.insert([{ key: 'doc#0001', data: { cf: { [q]: big } } }]);
    return table;
  },
};

const HOSTS = ['www', 'shop', 'api', 'mail', 'blog', 'docs'].flatMap((h) =>
  ['example.com', 'example.org', 'acme.io'].map((d) => `${h}.${d}`),
);
const domains: Workload = {
  name: 'unreversed-domains',
  example: 'www.example.com/index.html',
  table: 'crawl',
  expect: [{ rule: 'unreversed-domain', severity: 'warning' }],
  setup: withRows('crawl', () => HOSTS.flatMap((h) => Array.from({ length: 4 }, (_, i) => `${h}/page${i}.html`))),
};

const versions: Workload = {
  name: 'unbounded-versions',
  example: 'device#007 cf:status × 25 versions, no GC policy',
  table: 'status',
  expect: [{ rule: 'unbounded-versions', severity: 'warning' }],
  async setup(instance) {
    const table = await create(instance, 'status', { families: ['cf'] });
    for (let v = 0; v < 25; v++) {
      await table.insert(
        Array.from({ length: 20 }, (_, d) => ({
          key: `device#${pad(d, 3)}`,
          data: { cf: { status: { value: `s${v}`, timestamp: new Date(T0 + v * 1000) } } },
        })),
      );
    }
    return table;
  },
};

const filterScan: Workload = {
  name: 'filter-scan',
  example: 'full scans with a value filter keeping 1%',
  table: 'logs',
  expect: [{ rule: 'filter-scan', severity: 'warning' }],
  async setup(instance) {
    const table = await create(instance, 'logs');
    for (let b = 0; b < 3; b++) {
      await table.insert(
        Array.from({ length: 1000 }, (_, i) => {
          const n = b * 1000 + i;
          return { key: `log#${pad(n, 6)}`, data: { cf: { level: n % 100 === 0 ? 'ERROR' : 'INFO' } } };
        }),
      );
    }
    return table;
  },
  async traffic(table) {
    // "Find the errors": every row read, one in a hundred returned.
    await during(1_000, () => table.getRows({ filter: [{ value: /ERROR/ }] }));
  },
};

const REGIONS = ['us', 'eu', 'ap'];
const lowCardinality: Workload = {
  name: 'low-cardinality-prefix',
  example: 'us#user0042 (us takes 95% of the writes)',
  table: 'regional',
  expect: [{ rule: 'low-cardinality-prefix', severity: 'warning' }],
  setup: withRows('regional', () => REGIONS.flatMap((region) => Array.from({ length: 20 }, (_, i) => `${region}#user${pad(i * 5, 4)}`))),
  async traffic(table) {
    const r = seededRandom(15);
    // Batches of updates to many users, nearly all in `us`.
    await during(150, async () => {
      const rows = Array.from(
        { length: 6 },
        () => `${r() < 0.95 ? 'us' : REGIONS[1 + Math.floor(r() * 2)]!}#user${pad(Math.floor(r() * 100), 4)}`,
      );
      await writeRows(table, rows);
    });
  },
};

const hotTablet: Workload = {
  name: 'hot-tablet',
  example: 'user00000 … user00249 of 4 tablets take every request',
  table: 'profiles',
  expect: [{ rule: 'hot-tablet', severity: 'warning' }],
  setup: withRows('profiles', () => Array.from({ length: 1000 }, (_, i) => `user${pad(i, 5)}`), {
    splits: ['user00250', 'user00500', 'user00750'],
  }),
  async traffic(table) {
    const r = seededRandom(16);
    // A batch job over the first quarter of the users: many different rows, all in one tablet.
    await during(50, async () => {
      const i = Math.floor(r() * 250);
      await writeRows(table, [`user${pad(i, 5)}`]);
      await table.row(`user${pad((i * 31) % 250, 5)}`).get();
    });
  },
};

export const ANTI_PATTERNS: readonly Workload[] = [
  timestampIso,
  timestampEpoch,
  latestFirstLeading,
  sequential,
  hashed,
  unpadded,
  longKeys,
  binary,
  pii,
  phones,
  hotRow,
  hotStatusRow,
  families,
  tables,
  largeRow,
  domains,
  versions,
  filterScan,
  lowCardinality,
  hotTablet,
];
