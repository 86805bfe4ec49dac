import type { TabletInfo } from '../../db/api.js';
import type { FamilyShape, RowShape } from '../../db/row-profiles.js';
import type { ByteString } from '../../model/bytes.js';
import type { ColumnFamily } from '../../model/family.js';
import type { InstanceName, TableName } from '../../model/names.js';
import type { DiagnosticJson, KeyRangeJson, Severity } from '../api-types.js';

/**
 * The schema advisor's contract: what it reads (AdvisorInput, gathered from
 * the db, the recording and the tablet manager by gather.ts), what it answers
 * (Finding, AdviceJson: the JSON of `GET .../advice` and `tabletop advise
 * --json`), and the what-if simulation's answer (SimulationJson). The rules
 * (rules/) are pure functions of AdvisorInput, testable with inputs made by
 * hand. src/ui imports this file for its types only.
 */

/** Every rule's fixed id. */
export const RULE_IDS = [
  'timestamp-leading-key',
  'sequential-key',
  'hashed-key',
  'unpadded-number',
  'long-key',
  'non-printable-key',
  'pii-in-key',
  'hot-row',
  'too-many-families',
  'too-many-tables',
  'large-row',
  'unreversed-domain',
  'unbounded-versions',
  'filter-scan',
  'low-cardinality-prefix',
  'hot-tablet',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export type { Severity };

export type EvidenceValue = number | string | boolean | readonly (number | string)[];

export interface Finding {
  readonly rule: RuleId;
  /** `info` when the rule is unsure (say so in the message), `warning`, `danger` for what breaks in production. */
  readonly severity: Severity;
  /** The table's id (not its full name); for an instance-wide finding (too-many-tables), the first table concerned. */
  readonly table: string;
  /** One paragraph in plain words: what was seen, why it hurts. */
  readonly message: string;
  /** The figures behind it: sample keys (printable), counts, shares, the thresholds crossed. */
  readonly evidence: Readonly<Record<string, EvidenceValue>>;
  /** The redesign in the user's own keys: `2023-05-01T12:00:00Z#sensor123` → `sensor123#2023-05-01T12:00:00Z`. */
  readonly suggestion: string;
  /** A transform (TRANSFORM grammar below) that shows the fix in `tabletop advise --simulate`, when one fits. */
  readonly simulate?: string;
  /** The key range concerned, when it is not the whole table. */
  readonly keyRange?: KeyRangeJson;
}

/** `GET /api/v1/projects/{p}/instances/{i}/advice[?table=T]`, and `tabletop advise --json`. */
export interface AdviceJson {
  /** projects/P/instances/I */
  readonly instance: string;
  /** ISO time the advice was made. */
  readonly generatedAt: string;
  /** The traffic window the rules read (ISO). */
  readonly window: { readonly from: string; readonly to: string };
  /** Table ids examined. */
  readonly tables: readonly string[];
  /** danger first, then warning, then info; within a severity by table, then RULE_IDS order. */
  readonly findings: readonly Finding[];
  /** What the advice could not read, in words (recording off: the traffic rules said nothing); absent when nothing. */
  readonly notes?: readonly string[];
}

// ---- what the rules read ----

/**
 * The shape of one sampled row, read from the stores directly (no usage is recorded): TabletopDatabase.profileRows
 * (src/db/row-profiles.ts): `key`, `bytes` (key + qualifiers + values of every version), and per family `cells`,
 * `columns`, `maxVersions` (most versions of one column), `maxCellBytes`, up to 10 `qualifiers` as stored, and
 * `counterLike` (every newest cell of the family holds 8 bytes: a big-endian 64-bit integer, what increments write).
 */
export type RowProfile = RowShape;
export type FamilyProfile = FamilyShape;

/** Recorded traffic over the window, per key bucket of the table's current boundary set (ascending, covering the table). */
export interface TrafficBucket {
  readonly start: ByteString;
  /** Exclusive; undefined for the last bucket. */
  readonly end: ByteString | undefined;
  /** Rows in the bucket when its boundary set was made (1 per row on small tables). */
  readonly rows: number;
  readonly readOps: number;
  readonly writeOps: number;
  readonly rowsRead: number;
  readonly rowsReturned: number;
  readonly readBytes: number;
  readonly writeBytes: number;
}

export interface TrafficSummary {
  readonly fromMillis: number;
  readonly toMillis: number;
  readonly buckets: readonly TrafficBucket[];
}

export interface TableSample {
  readonly name: TableName;
  readonly families: readonly ColumnFamily[];
  readonly rows: number;
  readonly rowsEstimated: boolean;
  readonly storedBytes: number;
  /** Stored row keys (HistorySource.keySamples, else a direct sample), ascending, at most MAX_KEY_SAMPLES. */
  readonly keys: readonly ByteString[];
  /** Recently written row keys in the order they were written (oldest first), at most WRITE_ORDER_SAMPLES. */
  readonly writeOrder: readonly ByteString[];
  /** The largest rows known (exact on small tables), largest first. */
  readonly largestRows: readonly { readonly key: ByteString; readonly bytes: number }[];
  /** Rows read for their shape: the largest rows and rows spread over the key samples, at most MAX_ROW_PROFILES. */
  readonly rowProfiles: readonly RowProfile[];
  /** Undefined when recording is off (`--insight off`): the traffic rules then say nothing. */
  readonly traffic: TrafficSummary | undefined;
  /** The heatmap's diagnostics over the same window (sequential_keys, high_*_pressure, scan_inefficiency, ...). */
  readonly diagnostics: readonly DiagnosticJson[];
  /** The table's tablets now, with their recent load and placement. */
  readonly tablets: readonly TabletInfo[];
}

export interface NodeLoad {
  readonly cluster: string;
  readonly node: number;
  /** Serving time per second over the tablet manager's window. */
  readonly servingMicrosPerSec: number;
  readonly requestsPerSec: number;
  readonly tablets: number;
}

export interface AdvisorInput {
  readonly instance: InstanceName;
  readonly nowMillis: number;
  /** Every table of the instance (the too-many-tables rule needs them all, even when advice is asked for one). */
  readonly tables: readonly TableSample[];
  /** Advice is asked for this table only (findings of other tables are dropped); undefined: all. */
  readonly only?: string | undefined;
  readonly nodes: readonly NodeLoad[];
}

/** Bounds of the sampled input. */
export const WRITE_ORDER_SAMPLES = 256;
export const MAX_ROW_PROFILES = 200;

// ---- what-if ----

/**
 * TRANSFORM grammar (`tabletop advise --simulate TRANSFORM`, `GET .../tables/{t}/simulate?transform=`):
 * steps separated by `,`, applied left to right to each key split into segments on the delimiter (auto-detected
 * from the keys: the most common of `# : / | _ .`, or `delimiter=X` as a first step). Segments are 1-based.
 *   salt:N            prefix `{hash(key) % N}` zero-padded to N's width, then the delimiter
 *   salt:N@S          the same, hashing segment S only (keeps one entity's rows together)
 *   promote:S         move segment S to the front
 *   reverse:S         reverse segment S: a dotted domain by labels (`www.example.com` → `com.example.www`), else its characters
 *   reverse-timestamp:S   replace the timestamp in segment S (epoch s/ms/µs or ISO) by MAX - t, zero-padded
 *   pad:S:W | pad:W   zero-pad the numbers of segment S (or of every segment) to width W
 */
export type TransformSpec = string;

export interface SimulatedTablet {
  readonly startText: string;
  /** null: the end of the table. */
  readonly endText: string | null;
  readonly bytes: number;
  readonly readOps: number;
  readonly writeOps: number;
  /** Share of all ops (0..1). */
  readonly share: number;
  readonly node: number;
}

export interface SimulatedNode {
  readonly node: number;
  readonly tablets: number;
  readonly bytes: number;
  readonly ops: number;
  /** Share of all ops (0..1). */
  readonly share: number;
}

export interface SimulationSide {
  readonly tablets: readonly SimulatedTablet[];
  readonly nodes: readonly SimulatedNode[];
  readonly maxTabletShare: number;
  readonly maxNodeShare: number;
}

/** `GET .../tables/{t}/simulate?transform=X[&nodes=N]` and `tabletop advise --simulate X --table T --json`. */
export interface SimulationJson {
  readonly table: string;
  readonly transform: TransformSpec;
  /** The transform in words ("salt into 8 buckets by a hash of the key, then ..."). */
  readonly description: string;
  readonly nodes: number;
  readonly keysSampled: number;
  /** A few sampled keys before → after. */
  readonly examples: readonly { readonly before: string; readonly after: string }[];
  /** The keys and traffic as recorded, through the same split and balancing logic as `after`. */
  readonly before: SimulationSide;
  readonly after: SimulationSide;
  /** One sentence: did it spread the load (max node share before → after). */
  readonly verdict: string;
}
