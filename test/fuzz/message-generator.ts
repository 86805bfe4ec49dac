import type * as Protobuf from 'protobufjs';
import type { Random } from '../../src/testing/random.js';

/**
 * Random requests for any method of the Bigtable services, generated from
 * the proto descriptors (protobufjs reflection): every field of the
 * request type, nested messages, repeated and map fields, oneofs (one
 * member, sometimes two so that the last must win), enums (known values
 * and numbers no enum has). Values lean towards what finds bugs:
 *  - names that look valid (projects/fuzz/instances/i0/tables/t1, the
 *    children of tables, clusters and instances), drawn from a small pool
 *    so that creates, reads and deletes meet, and broken variants of them;
 *  - identifiers (table_id, cluster_id, ...) from the same pool, and bad ones;
 *  - extreme numbers: 0, -1, the int32/int64/uint64 limits, 2^53 ± 1, NaN, ±Infinity;
 *  - regular expressions (filters) that RE2 accepts, refuses, or finds costly;
 *  - SQL-looking queries, field masks naming real and unknown paths;
 *  - deep nesting of self-recursive types (a RowFilter condition inside a
 *    condition ... hundreds of levels down).
 * The result is a plain object in the loader's form (int64 as decimal
 * strings, bytes as Buffers), encoded by the method's own serializer.
 */

const PROJECT = 'projects/fuzz';
const INSTANCES = ['i0', 'i1'];
const TABLES = ['t0', 't1', 't2'];
const CLUSTERS = ['c0', 'c1'];
const CHILDREN = ['v0', 'b0', 'default', 'ap0', 'lv0', 'mv0'];

const INT64_EXTREMES = [
  '0',
  '-1',
  '1',
  '9223372036854775807',
  '-9223372036854775808',
  '9007199254740991',
  '9007199254740992',
  '-9007199254740993',
  '1000',
  '1735689600000000',
];
const UINT64_EXTREMES = ['0', '1', '18446744073709551615', '9223372036854775808', '9007199254740993'];
const INT32_EXTREMES = [0, -1, 1, 2147483647, -2147483648, 255, 65535, 1000];
const UINT32_EXTREMES = [0, 1, 4294967295, 2147483648, 100000];
const DOUBLE_EXTREMES = [0, -0, 1, -1, 0.5, Number.NaN, Infinity, -Infinity, 1e308, -1e308, 5e-324, 2 ** 53];

const REGEXES = [
  '.*',
  'cf',
  'a|b',
  '\\C*',
  '(a+)+$',
  '(?i)ABC',
  '[[:alpha:]]+',
  '\\p{Greek}',
  'a{1000}{1000}',
  'a{1001}',
  '(',
  '[z-a]',
  '(?P<n>x)\\k<n>',
  '(?=look)',
  '\\',
  '\u00ff\u0000',
  'x'.repeat(5000),
  '((((((((((a))))))))))*',
];

const QUERIES = [
  'SELECT * FROM t0',
  "SELECT _key, cf['q'] FROM t1 WHERE _key = @k",
  'SELECT COUNT(*) FROM t0 GROUP BY _key',
  'SELECT',
  'DROP TABLE t0',
  "SELECT * FROM t0 WHERE _key LIKE '%'",
  'SELECT 1/0',
  `SELECT ${'('.repeat(500)}1${')'.repeat(500)}`,
  'SELECT * FROM UNPACK((SELECT * FROM t0 WITH (max_versions => 5)))',
];

const MASK_PATHS = ['gc_rule', 'deletion_protection', 'display_name', 'labels', 'description', 'nope', '', 'a.b.c', 'serve_nodes'];

export interface GeneratorOptions {
  /** Nested messages below this depth are left out (except in deliberate deep nesting). */
  readonly maxDepth: number;
  /** Probability that a self-recursive field starts a deep chain. */
  readonly deepNesting: number;
}

const DEFAULTS: GeneratorOptions = { maxDepth: 6, deepNesting: 0.01 };

export class MessageGenerator {
  private readonly opts: GeneratorOptions;
  /** Per type: the fields whose type (transitively) contains the type itself. */
  private readonly recursiveFields = new Map<Protobuf.Type, Protobuf.Field[]>();
  /** Large values (long strings and bytes, long lists, deep nesting) left for the message being made: one, so that sizes do not multiply. */
  private large = 1;
  /** The message type whose fields are being made (names are chosen by it). */
  private typeName = '';
  /** Names already given in the message being made (tableName, authorizedViewName, ...: usually one is set). */
  private namesGiven = 0;

  constructor(
    private readonly random: Random,
    options: Partial<GeneratorOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...options };
  }

  /** A random message of `type`, as a plain object in the loader's form. */
  message(type: Protobuf.Type, depth = 0): Record<string, unknown> {
    const r = this.random;
    if (depth === 0) this.large = 1;
    const out: Record<string, unknown> = {};
    if (depth > 0 && this.bigOne(this.opts.deepNesting)) {
      const deep = this.deep(type);
      if (deep !== undefined) return deep;
    }
    const outerType = this.typeName;
    const outerNames = this.namesGiven;
    this.typeName = type.name;
    this.namesGiven = 0;
    try {
      return this.fields(type, depth, out);
    } finally {
      this.typeName = outerType;
      this.namesGiven = outerNames;
    }
  }

  private fields(type: Protobuf.Type, depth: number, out: Record<string, unknown>): Record<string, unknown> {
    const r = this.random;
    const inOneof = new Set<string>();
    for (const oneof of type.oneofsArray) {
      for (const f of oneof.fieldsArray) inOneof.add(f.name);
      if (oneof.fieldsArray.length === 0 || r.chance(0.15)) continue;
      // One member, or (sometimes) two: the decoder must keep the last.
      const members = r.chance(0.05) ? [r.pick(oneof.fieldsArray), r.pick(oneof.fieldsArray)] : [r.pick(oneof.fieldsArray)];
      for (const f of members) this.setField(out, f, depth);
    }
    for (const field of type.fieldsArray) {
      if (inOneof.has(field.name)) continue;
      if (r.chance(field.repeated || field.map ? 0.5 : 0.35)) continue;
      // tableName, authorizedViewName, materializedViewName: one of them, mostly.
      if (field.name.endsWith('Name') && field.type === 'string' && this.namesGiven++ > 0 && r.chance(0.85)) continue;
      this.setField(out, field, depth);
    }
    return out;
  }

  private setField(out: Record<string, unknown>, field: Protobuf.Field, depth: number): void {
    field.resolve();
    const r = this.random;
    if (field.map) {
      const entries: Record<string, unknown> = {};
      const n = this.bigOne(0.05) ? r.int(10, 200) : r.int(0, 3);
      for (let i = 0; i < n; i++) {
        const key = field.name === 'columnFamilies' ? r.pick(['cf', 'cf2', 'agg', '', 'x'.repeat(70), 'bad name']) : this.word();
        const value = this.value(field, depth);
        if (value !== undefined) entries[key] = value;
      }
      out[field.name] = entries;
      return;
    }
    if (field.repeated) {
      const n = this.bigOne(0.02) ? r.int(100, 3000) : r.int(0, 4);
      const values: unknown[] = [];
      for (let i = 0; i < n; i++) {
        const v = this.value(field, depth);
        if (v !== undefined) values.push(v);
      }
      out[field.name] = values;
      return;
    }
    const v = this.value(field, depth);
    if (v !== undefined) out[field.name] = v;
  }

  private value(field: Protobuf.Field, depth: number): unknown {
    const r = this.random;
    const rt = field.resolvedType;
    if (rt !== null && 'fieldsArray' in rt) {
      if (depth >= this.opts.maxDepth) return undefined;
      return this.message(rt, depth + 1);
    }
    if (rt !== null) {
      // An enum: a known value, or a number none of its values has.
      const values = Object.values((rt as Protobuf.Enum).values);
      return r.chance(0.85) && values.length > 0 ? r.pick(values) : r.pick([-1, 99, 2147483647, values.length]);
    }
    switch (field.type) {
      case 'string':
        return this.string(field.name);
      case 'bytes':
        return this.bytes(field.name);
      case 'bool':
        return r.chance(0.5);
      case 'int64':
      case 'sint64':
      case 'sfixed64':
        return r.chance(0.6) ? r.pick(INT64_EXTREMES) : String(r.int(-1e9, 1e9));
      case 'uint64':
      case 'fixed64':
        return r.pick(UINT64_EXTREMES);
      case 'int32':
      case 'sint32':
      case 'sfixed32':
        return r.chance(0.6) ? r.pick(INT32_EXTREMES) : r.int(-1000, 100000);
      case 'uint32':
      case 'fixed32':
        return r.pick(UINT32_EXTREMES);
      case 'double':
      case 'float':
        return r.chance(0.6) ? r.pick(DOUBLE_EXTREMES) : (r.next() - 0.5) * 1e6;
      default:
        return undefined;
    }
  }

  private string(name: string): string {
    const r = this.random;
    const n = name.toLowerCase();
    if (r.chance(0.05)) return this.junk();
    if (n.endsWith('regexfilter') || n.includes('regex')) return r.pick(REGEXES);
    if (n === 'query') return r.pick(QUERIES);
    if (n === 'paths') return r.pick(MASK_PATHS);
    if (n.endsWith('id') && n !== 'appprofileid')
      return r.chance(0.8) ? r.pick([...TABLES, ...CLUSTERS, ...CHILDREN, ...INSTANCES]) : this.badId();
    if (n === 'appprofileid') return r.pick(['', 'default', 'ap0', 'nope']);
    if (n.includes('name') || n === 'parent' || n === 'resource' || n.includes('source') || n.includes('backup') || n.includes('table'))
      return this.resourceName(n);
    if (n === 'location' || n.endsWith('location')) return r.pick(['projects/fuzz/locations/us-east1-b', 'us-east1-b', '']);
    return this.word();
  }

  private bytes(name: string): Buffer {
    const r = this.random;
    const n = name.toLowerCase();
    if (n.includes('regex')) return Buffer.from(r.pick(REGEXES), r.chance(0.8) ? 'utf8' : 'latin1');
    const length = this.bigOne(0.02) ? r.pick([4096, 4097, 16 * 1024 + 1, 256 * 1024]) : r.int(0, 12);
    const b = Buffer.alloc(length);
    if (r.chance(0.5)) for (let i = 0; i < length; i++) b[i] = r.below(256);
    else b.fill(r.pick([0x61, 0x00, 0xff, 0x7a]));
    return b;
  }

  /**
   * A name that looks like a Bigtable resource, mostly of the kind the field wants (by the field's name, else
   * by the message type: `name` of a GetTableRequest is a table, its `parent` in a CreateTableRequest an
   * instance), sometimes of another kind or broken.
   */
  resourceName(field = ''): string {
    const r = this.random;
    const instance = `${PROJECT}/instances/${r.pick(INSTANCES)}`;
    const table = `${instance}/tables/${r.pick(TABLES)}`;
    const cluster = `${instance}/clusters/${r.pick(CLUSTERS)}`;
    const names: Record<Kind, string> = {
      project: PROJECT,
      instance,
      table,
      authorizedView: `${table}/authorizedViews/v0`,
      cluster,
      backup: `${cluster}/backups/b0`,
      appProfile: `${instance}/appProfiles/${r.pick(['default', 'ap0'])}`,
      logicalView: `${instance}/logicalViews/lv0`,
      materializedView: `${instance}/materializedViews/mv0`,
      location: `${PROJECT}/locations/us-east1-b`,
      operation: `operations/${instance}/locations/us-east1-b/operations/1`,
    };
    const wanted = kindOf(field, this.typeName);
    const name = wanted !== undefined && r.chance(0.85) ? names[wanted] : r.pick(Object.values(names));
    if (r.chance(0.85)) return name;
    return r.pick([
      `${name}/`,
      name.replace('instances', 'instance'),
      `${name}//x`,
      name.toUpperCase(),
      `${name}/tables/${'x'.repeat(r.pick([51, 5000]))}`,
      `${name}/tables/\u00e9\u0000`,
      '',
      name.slice(0, r.below(name.length)),
    ]);
  }

  /** With probability `p`, and only while the message has a large value left: true (and it is taken). */
  private bigOne(p: number): boolean {
    if (this.large <= 0 || !this.random.chance(p)) return false;
    this.large--;
    return true;
  }

  private badId(): string {
    return this.random.pick(['', '-', '1abc', 'a'.repeat(51), 'a'.repeat(5000), 'has space', 'UPPER', '\u00e9', 'a/b', '_x']);
  }

  private word(): string {
    const r = this.random;
    return r.chance(0.8) ? r.pick(['cf', 'q', 'x', 'default', 'l', 'en']) : this.junk();
  }

  private junk(): string {
    const r = this.random;
    const length = this.bigOne(0.05) ? r.int(1000, 70_000) : r.int(0, 16);
    let s = '';
    for (let i = 0; i < length; i++)
      s += String.fromCodePoint(r.chance(0.9) ? r.int(0x20, 0x7e) : r.pick([0, 0xe9, 0x4e2d, 0x1f600, 0xfffd]));
    return s;
  }

  /**
   * A deep chain through a self-recursive field of `type` (RowFilter's
   * condition, chain and interleave; Type's arrays and structs), or
   * undefined if the type has none.
   */
  private deep(type: Protobuf.Type): Record<string, unknown> | undefined {
    const fields = this.recursive(type);
    if (fields.length === 0) return undefined;
    const r = this.random;
    const levels = r.pick([64, 200, 1000, 5000]);
    let inner: Record<string, unknown> = {};
    for (let i = 0; i < levels; i++) {
      const f = r.pick(fields);
      const wrapped: Record<string, unknown> = {};
      const child = f.resolvedType as Protobuf.Type;
      if (child === type) wrapped[f.name] = f.repeated ? [inner] : inner;
      else {
        // One step through an intermediate type (RowFilter.Chain.filters) back to `type`.
        const back = child.fieldsArray.find((g) => (g.resolve(), g.resolvedType === type));
        if (back === undefined) continue;
        wrapped[f.name] = { [back.name]: back.repeated ? [inner] : inner };
      }
      inner = wrapped;
    }
    return inner;
  }

  private recursive(type: Protobuf.Type): Protobuf.Field[] {
    let fields = this.recursiveFields.get(type);
    if (fields === undefined) {
      fields = type.fieldsArray.filter((f) => {
        f.resolve();
        const t = f.resolvedType;
        if (t === type) return true;
        if (t === null || !('fieldsArray' in t)) return false;
        return t.fieldsArray.some((g) => (g.resolve(), g.resolvedType === type));
      });
      this.recursiveFields.set(type, fields);
    }
    return fields;
  }
}

type Kind =
  | 'project'
  | 'instance'
  | 'table'
  | 'authorizedView'
  | 'cluster'
  | 'backup'
  | 'appProfile'
  | 'logicalView'
  | 'materializedView'
  | 'location'
  | 'operation';

/** Resource kinds as message type names show them, most specific first, with the kind of their parent. */
const KINDS: readonly [string, Kind, Kind][] = [
  ['AuthorizedView', 'authorizedView', 'table'],
  ['MaterializedView', 'materializedView', 'instance'],
  ['LogicalView', 'logicalView', 'instance'],
  ['AppProfile', 'appProfile', 'instance'],
  ['Backup', 'backup', 'cluster'],
  ['HotTablet', 'cluster', 'cluster'],
  ['Snapshot', 'table', 'cluster'],
  ['Cluster', 'cluster', 'instance'],
  ['Table', 'table', 'instance'],
  ['Instance', 'instance', 'project'],
  ['Operation', 'operation', 'operation'],
  ['Consistency', 'table', 'table'],
  ['RowRange', 'table', 'table'],
  ['Iam', 'table', 'table'],
];

/** The kind of resource a string field names, by its name, else by its message type; undefined if neither tells. */
function kindOf(field: string, typeName: string): Kind | undefined {
  if (field === 'tablename' || field === 'sourcetable') return 'table';
  if (field === 'instancename') return 'instance';
  if (field === 'authorizedviewname') return 'authorizedView';
  if (field === 'materializedviewname') return 'materializedView';
  if (field === 'sourcebackup' || field === 'backup') return 'backup';
  if (field === 'location') return 'location';
  const k = KINDS.find(([word]) => typeName.includes(word));
  if (k === undefined) return undefined;
  if (field === 'parent') return typeName.startsWith('ListInstances') || typeName.startsWith('CreateInstance') ? 'project' : k[2];
  if (field === 'name' || field === 'resource') return k[1];
  return undefined;
}

/** The encoded request, sometimes damaged: truncated, bytes flipped, garbage appended, a piece repeated. */
export function damage(random: Random, bytes: Buffer): Buffer {
  const r = random;
  switch (r.below(4)) {
    case 0:
      return bytes.subarray(0, r.below(Math.max(1, bytes.length)));
    case 1: {
      const out = Buffer.from(bytes);
      for (let i = r.int(1, 4); i > 0 && out.length > 0; i--) {
        const at = r.below(out.length);
        out[at] = out[at]! ^ r.int(1, 255);
      }
      return out;
    }
    case 2:
      return Buffer.concat([bytes, Buffer.from(Array.from({ length: r.int(1, 16) }, () => r.below(256)))]);
    default: {
      const from = r.below(Math.max(1, bytes.length));
      return Buffer.concat([bytes, bytes.subarray(from, from + r.int(1, 64))]);
    }
  }
}
