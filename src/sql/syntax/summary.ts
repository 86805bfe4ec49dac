import type { DatePart, Expr, From, Ident, NamedArg, OrderItem, Pos, Select, SelectItem, TableSource, TypeExpr, Unnest } from './ast.js';

/**
 * A syntax tree as one line of S-expressions, for tests and diagnostics: operators explicit and fully
 * parenthesised (`SELECT 1 + 2 * 3` → `(select (+ 1 (* 2 3)))`), names as written (backquoted when they were).
 */
export function summarize(s: Select): string {
  const parts = ['select'];
  if (s.distinct) parts.push('distinct');
  parts.push(...s.items.map(item));
  if (s.from !== null) parts.push(from(s.from));
  if (s.where !== null) parts.push(`(where ${expr(s.where)})`);
  if (s.groupBy.length > 0) parts.push(`(group-by ${s.groupBy.map(expr).join(' ')})`);
  if (s.having !== null) parts.push(`(having ${expr(s.having)})`);
  if (s.orderBy.length > 0) parts.push(orderBy(s.orderBy));
  if (s.limit !== null) parts.push(`(limit ${expr(s.limit)})`);
  if (s.offset !== null) parts.push(`(offset ${expr(s.offset)})`);
  return `(${parts.join(' ')})`;
}

/** Every node's kind and position, in source order of the tree walk: `select@1:1 binary@1:8 (op@1:10) ...`. */
export function positions(s: Select): string {
  const out: string[] = [];
  const at = (p: Pos): string => `${p.line}:${p.column}`;
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || node instanceof Uint8Array) return;
    if (Array.isArray(node)) return node.forEach(walk);
    const n = node as Record<string, unknown>;
    const pos = n['pos'] as Pos | undefined;
    if (pos !== undefined && typeof n['kind'] === 'string') {
      const opPos = n['opPos'] as Pos | undefined;
      out.push(`${n['kind'] as string}@${at(pos)}${opPos === undefined ? '' : `/${at(opPos)}`}`);
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'pos' && k !== 'opPos') walk(v);
  };
  walk(s);
  return out.join(' ');
}

function name(i: Ident): string {
  return i.quoted ? `\`${i.name}\`` : i.name;
}

function item(i: SelectItem): string {
  if (i.kind === 'expr') return i.alias === null ? expr(i.expr) : `(as ${expr(i.expr)} ${name(i.alias)})`;
  const parts = [i.qualifier === null ? '*' : `${expr(i.qualifier)}.*`];
  if (i.except.length > 0) parts.push(`(except ${i.except.map(name).join(' ')})`);
  if (i.replace.length > 0) parts.push(`(replace ${i.replace.map((r) => `(as ${expr(r.expr)} ${name(r.name)})`).join(' ')})`);
  return parts.length === 1 ? parts[0]! : `(${parts.join(' ')})`;
}

function from(f: From): string {
  const parts = ['from', source(f.source)];
  for (const u of f.unnests) parts.push(`(${u.join === 'cross' ? 'cross-join ' : ''}${unnest(u.unnest)})`);
  return `(${parts.join(' ')})`;
}

function aliased(s: string, alias: Ident | null): string {
  return alias === null ? s : `(as ${s} ${name(alias)})`;
}

function source(s: TableSource): string {
  switch (s.kind) {
    case 'table': {
      const table = s.name.map(name).join('.');
      const args = s.args === null ? table : `(tvf ${table}${s.args.map((a) => ` ${namedArg(a)}`).join('')})`;
      return aliased(args, s.alias);
    }
    case 'unpack':
      return aliased(`(unpack ${summarize(s.query)})`, s.alias);
    case 'subquery':
      return aliased(summarize(s.query), s.alias);
    case 'unnest':
      return `(${unnest(s.unnest)})`;
  }
}

function unnest(u: Unnest): string {
  const parts = [u.explicit ? `unnest ${expr(u.expr)}` : `path ${expr(u.expr)}`];
  if (u.alias !== null) parts.push(`(as ${name(u.alias)})`);
  if (u.withOffset !== null) parts.push(u.withOffset.alias === null ? '(with-offset)' : `(with-offset ${name(u.withOffset.alias)})`);
  return parts.join(' ');
}

function namedArg(a: NamedArg): string {
  return `(${name(a.name)} => ${expr(a.value)})`;
}

function orderBy(items: readonly OrderItem[]): string {
  const one = (o: OrderItem): string => {
    const mods = [o.explicitDirection ? o.direction.toLowerCase() : '', o.nulls === null ? '' : `nulls-${o.nulls.toLowerCase()}`].filter(
      (m) => m !== '',
    );
    return mods.length === 0 ? expr(o.expr) : `(${mods.join(' ')} ${expr(o.expr)})`;
  };
  return `(order-by ${items.map(one).join(' ')})`;
}

function part(p: DatePart): string {
  return p.weekday === null ? p.name : `${p.name}(${p.weekday})`;
}

export function typeSummary(t: TypeExpr): string {
  switch (t.kind) {
    case 'namedType':
      return t.name;
    case 'arrayType':
      return `ARRAY<${typeSummary(t.element)}>`;
    case 'mapType':
      return `MAP<${typeSummary(t.key)}, ${typeSummary(t.value)}>`;
    case 'structType':
      return `STRUCT<${t.fields.map((f) => (f.name === null ? typeSummary(f.type) : `${name(f.name)} ${typeSummary(f.type)}`)).join(', ')}>`;
  }
}

function bytesText(b: Uint8Array): string {
  let s = '';
  for (const x of b)
    s += x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c ? String.fromCharCode(x) : `\\x${x.toString(16).padStart(2, '0')}`;
  return `b"${s}"`;
}

function list(head: string, items: readonly string[]): string {
  return `(${[head, ...items].join(' ')})`;
}

export function expr(e: Expr): string {
  switch (e.kind) {
    case 'int':
      return e.value.toString();
    case 'float':
      return `float:${e.value}`;
    case 'string':
      return JSON.stringify(e.value);
    case 'bytes':
      return bytesText(e.value);
    case 'bool':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'typedLiteral':
      return `${e.type}:${JSON.stringify(e.text)}`;
    case 'param':
      return `@${e.name}`;
    case 'ident':
      return name(e.ident);
    case 'field':
      return `${expr(e.expr)}.${name(e.field)}`;
    case 'subscript':
      return list(e.mode === 'index' ? '[]' : `[${e.mode}]`, [expr(e.expr), expr(e.index)]);
    case 'unary':
      return list(e.op, [expr(e.operand)]);
    case 'binary':
      return list(e.op, [expr(e.left), expr(e.right)]);
    case 'is':
      return list(`IS${e.not ? ' NOT' : ''} ${e.test}`, [expr(e.expr)]);
    case 'in': {
      const t = e.target;
      const target =
        t.kind === 'list' ? list('list', t.items.map(expr)) : t.kind === 'unnest' ? list('unnest', [expr(t.array)]) : summarize(t.query);
      return list(e.not ? 'NOT IN' : 'IN', [expr(e.expr), target]);
    }
    case 'between':
      return list(e.not ? 'NOT BETWEEN' : 'BETWEEN', [expr(e.expr), expr(e.low), expr(e.high)]);
    case 'like':
      return list(e.not ? 'NOT LIKE' : 'LIKE', [expr(e.expr), expr(e.pattern)]);
    case 'case': {
      const parts = e.operand === null ? [] : [expr(e.operand)];
      parts.push(...e.whens.map((w) => list('when', [expr(w.when), expr(w.then)])));
      if (e.else !== null) parts.push(list('else', [expr(e.else)]));
      return list('case', parts);
    }
    case 'cast': {
      const parts = [expr(e.expr), typeSummary(e.type)];
      if (e.format !== null) parts.push(list('format', [expr(e.format)]));
      return list(e.safe ? 'safe-cast' : 'cast', parts);
    }
    case 'call': {
      const parts: string[] = [];
      if (e.distinct) parts.push('distinct');
      if (e.star) parts.push('*');
      parts.push(...e.args.map(expr), ...e.namedArgs.map(namedArg));
      if (e.nulls !== null) parts.push(`${e.nulls.toLowerCase()}-nulls`);
      if (e.orderBy.length > 0) parts.push(orderBy(e.orderBy));
      if (e.limit !== null) parts.push(list('limit', [expr(e.limit)]));
      return list(`call ${e.name.map(name).join('.')}`, parts);
    }
    case 'extract': {
      const parts = [part(e.part), expr(e.expr)];
      if (e.timeZone !== null) parts.push(list('at-time-zone', [expr(e.timeZone)]));
      return list('extract', parts);
    }
    case 'interval':
      return list('interval', [expr(e.value), part(e.part), ...(e.toPart === null ? [] : [part(e.toPart)])]);
    case 'array':
      return list(e.elementType === null ? 'array' : `array<${typeSummary(e.elementType)}>`, e.elements.map(expr));
    case 'struct': {
      const head = e.syntax === 'tuple' ? 'tuple' : e.type === null ? 'struct' : `struct ${typeSummary(e.type)}`;
      return list(
        head,
        e.fields.map((f) => (f.alias === null ? expr(f.expr) : `(as ${expr(f.expr)} ${name(f.alias)})`)),
      );
    }
    case 'lambda':
      return list('lambda', [`(${e.params.map(name).join(' ')})`, expr(e.body)]);
    case 'subquery':
      return list(e.mode === 'scalar' ? 'subquery' : e.mode === 'array' ? 'array-subquery' : 'exists', [summarize(e.query)]);
  }
}
