import type { BackupInfo } from '../../db/api.js';
import { invalidArgument } from '../../model/errors.js';
import { backupNameString, tableNameString } from '../../model/names.js';

/**
 * ListBackups' `filter` and `order_by`, as the API reference defines them.
 *
 * filter: comparisons `field op value` on name, source_table, state, start_time, end_time, expire_time,
 * size_bytes and backup_type, with op one of `=`, `!=`, `<`, `<=`, `>`, `>=` and `:` (has: a substring of a
 * string field, equality otherwise); values bare or "quoted", times RFC 3339. Combined with AND, OR, NOT (or
 * `-`) and parentheses, juxtaposition meaning AND; OR binds tighter than AND, as AIP-160 has it.
 *
 * order_by: comma-separated fields of the same list, each optionally followed by `asc` or `desc`. Without
 * one, the most recently started backup comes first (start_time desc), as the reference says.
 */

type Field = 'name' | 'source_table' | 'state' | 'start_time' | 'end_time' | 'expire_time' | 'size_bytes' | 'backup_type';
const FIELDS: readonly Field[] = ['name', 'source_table', 'state', 'start_time', 'end_time', 'expire_time', 'size_bytes', 'backup_type'];
const TIME_FIELDS: ReadonlySet<Field> = new Set(['start_time', 'end_time', 'expire_time']);
type Op = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

type Expr =
  | { readonly kind: 'cmp'; readonly field: Field; readonly op: Op; readonly value: string }
  | { readonly kind: 'not'; readonly e: Expr }
  | { readonly kind: 'and' | 'or'; readonly l: Expr; readonly r: Expr };

/** The backups that match `filter` (all when it is empty), in `orderBy`'s order. */
export function filterAndOrderBackups(backups: readonly BackupInfo[], filter: string, orderBy: string): BackupInfo[] {
  const expr = filter.trim() === '' ? undefined : parseFilter(filter);
  const order = parseOrderBy(orderBy);
  const matched = expr === undefined ? [...backups] : backups.filter((b) => matches(expr, b));
  return matched.sort((a, b) => {
    for (const { field, desc } of order) {
      const c = compareValues(fieldValue(a, field), fieldValue(b, field));
      if (c !== 0) return desc ? -c : c;
    }
    return compareValues(backupNameString(a.name), backupNameString(b.name));
  });
}

function fieldValue(b: BackupInfo, f: Field): string | number | undefined {
  switch (f) {
    case 'name':
      return backupNameString(b.name);
    case 'source_table':
      return tableNameString(b.sourceTable);
    case 'state':
      return b.state;
    case 'backup_type':
      return b.backupType;
    case 'start_time':
      return b.startTimeMillis;
    case 'end_time':
      return b.endTimeMillis;
    case 'expire_time':
      return b.expireTimeMillis;
    case 'size_bytes':
      return b.sizeBytes;
  }
}

function compareValues(a: string | number | undefined, b: string | number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a < b ? -1 : 1;
}

function matches(e: Expr, b: BackupInfo): boolean {
  switch (e.kind) {
    case 'not':
      return !matches(e.e, b);
    case 'and':
      return matches(e.l, b) && matches(e.r, b);
    case 'or':
      return matches(e.l, b) || matches(e.r, b);
    case 'cmp': {
      const actual = fieldValue(b, e.field);
      if (actual === undefined) return false;
      const expected = typeof actual === 'number' ? numberOf(e.field, e.value) : e.value;
      if (e.op === ':') return typeof actual === 'string' ? actual.includes(e.value) : actual === expected;
      const c = compareValues(actual, expected);
      return e.op === '='
        ? c === 0
        : e.op === '!='
          ? c !== 0
          : e.op === '<'
            ? c < 0
            : e.op === '<='
              ? c <= 0
              : e.op === '>'
                ? c > 0
                : c >= 0;
    }
  }
}

function numberOf(field: Field, value: string): number {
  const n = TIME_FIELDS.has(field) ? Date.parse(value) : Number(value);
  if (!Number.isFinite(n)) {
    throw invalidArgument(`ListBackups: invalid ${TIME_FIELDS.has(field) ? 'timestamp' : 'number'} "${value}" for ${field} in the filter`);
  }
  return n;
}

const TOKEN_RE = /\s*(?:(\()|(\))|(!=|<=|>=|[=<>:])|"((?:[^"\\]|\\.)*)"|([^\s()"=<>:!]+))/y;

type Token = { readonly t: 'lp' | 'rp' | 'op' | 'str' | 'word'; readonly v: string };

function tokenize(filter: string): Token[] {
  const out: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  while (TOKEN_RE.lastIndex < filter.length) {
    if (/^\s*$/.test(filter.slice(TOKEN_RE.lastIndex))) break;
    const at = TOKEN_RE.lastIndex;
    const m = TOKEN_RE.exec(filter);
    if (m === null) throw invalidArgument(`ListBackups: cannot parse the filter "${filter}" at character ${at}`);
    if (m[1] !== undefined) out.push({ t: 'lp', v: '(' });
    else if (m[2] !== undefined) out.push({ t: 'rp', v: ')' });
    else if (m[3] !== undefined) out.push({ t: 'op', v: m[3] });
    else if (m[4] !== undefined) out.push({ t: 'str', v: m[4].replace(/\\(.)/g, '$1') });
    else out.push({ t: 'word', v: m[5]! });
  }
  return out;
}

function parseFilter(filter: string): Expr {
  const tokens = tokenize(filter);
  let i = 0;
  const bad = (what: string): never => {
    throw invalidArgument(`ListBackups: invalid filter "${filter}": ${what}`);
  };
  const peek = (): Token | undefined => tokens[i];
  // and := or (('AND')? or)* ; or := unary ('OR' unary)* ; unary := ('NOT' | '-')? primary
  const parseAnd = (): Expr => {
    let l = parseOr();
    for (let t = peek(); t !== undefined && t.t !== 'rp'; t = peek()) {
      if (t.t === 'word' && t.v === 'AND') i++;
      l = { kind: 'and', l, r: parseOr() };
    }
    return l;
  };
  const parseOr = (): Expr => {
    let l = parseUnary();
    while (peek()?.t === 'word' && peek()!.v === 'OR') {
      i++;
      l = { kind: 'or', l, r: parseUnary() };
    }
    return l;
  };
  const parseUnary = (): Expr => {
    const t = peek();
    if (t?.t === 'word' && (t.v === 'NOT' || t.v === '-')) {
      i++;
      return { kind: 'not', e: parseUnary() };
    }
    if (t?.t === 'word' && t.v.startsWith('-') && t.v.length > 1) {
      tokens[i] = { t: 'word', v: t.v.slice(1) };
      return { kind: 'not', e: parsePrimary() };
    }
    return parsePrimary();
  };
  const parsePrimary = (): Expr => {
    const t = tokens[i++];
    if (t === undefined) return bad('it ends early');
    if (t.t === 'lp') {
      const e = parseAnd();
      if (tokens[i++]?.t !== 'rp') bad('a parenthesis is not closed');
      return e;
    }
    if (t.t !== 'word') return bad(`unexpected "${t.v}"`);
    const field = t.v as Field;
    if (!FIELDS.includes(field)) bad(`unknown field "${t.v}" (fields: ${FIELDS.join(', ')})`);
    const op = tokens[i++];
    if (op?.t !== 'op') return bad(`${t.v} needs an operator (=, !=, <, <=, >, >=, :)`);
    const value = tokens[i++];
    if (value === undefined || (value.t !== 'word' && value.t !== 'str')) return bad(`${t.v} ${op.v} needs a value`);
    return { kind: 'cmp', field, op: op.v as Op, value: value.v };
  };
  const e = parseAnd();
  if (i < tokens.length) bad(`unexpected "${tokens[i]!.v}"`);
  return e;
}

function parseOrderBy(orderBy: string): { field: Field; desc: boolean }[] {
  if (orderBy.trim() === '') return [{ field: 'start_time', desc: true }];
  return orderBy.split(',').map((part) => {
    const words = part.trim().split(/\s+/);
    const field = words[0] as Field;
    const dir = words[1]?.toLowerCase();
    if (!FIELDS.includes(field) || words.length > 2 || (dir !== undefined && dir !== 'asc' && dir !== 'desc')) {
      throw invalidArgument(
        `ListBackups: invalid order_by "${orderBy}" (fields: ${FIELDS.join(', ')}, each optionally followed by asc or desc)`,
      );
    }
    return { field, desc: dir === 'desc' };
  });
}
