import { isTabletopError } from '../../model/errors.js';
import type {
  ArrayExpr,
  BinaryOp,
  CallExpr,
  DatePart,
  Expr,
  From,
  Ident,
  SubscriptExpr,
  InExpr,
  NamedArg,
  OrderItem,
  Pos,
  Select,
  SelectItem,
  StarItem,
  Statement,
  StructExpr,
  StructType,
  TableSource,
  TypeExpr,
  TypedLiteral,
  Unnest,
  UnnestJoin,
} from './ast.js';
import { KEYWORD_FUNCTIONS, NILADIC_FUNCTIONS, NON_QUERY_STATEMENTS, RESERVED, TYPED_LITERALS } from './keywords.js';
import { lex, type Token } from './lexer.js';
import { errorAt, SourceText } from './source-text.js';

/** The longest query accepted, in UTF-16 code units (1 MiB of ASCII). */
export const MAX_QUERY_LENGTH = 1 << 20;
/** How deep the tree may be, in nodes (a chain `a + b + c ...` is one level per operator): later passes may recurse over it. */
export const MAX_NESTING = 1000;
/** How deeply expressions may nest in the text (each parenthesis, argument list, subscript or subquery is a level). */
const MAX_PARSER_RECURSION = 200;

const UNSUPPORTED = "Bigtable's GoogleSQL supports only SELECT";

/**
 * Parses one GoogleSQL query (an optional trailing `;` allowed) into its syntax tree.
 * Throws an InvalidArgument TabletopError `line L, column C: ...` for a syntax error, for statements and clauses
 * the dialect lacks (DML, DDL, JOIN, UNION, WITH, several statements), and for a query too long or nested too
 * deeply; nothing else escapes (no RangeError, however hostile the query).
 */
export function parse(query: string): Statement {
  if (query.length > MAX_QUERY_LENGTH) {
    throw errorAt({ line: 1, column: 1 }, `the query is too long (${query.length} characters; at most ${MAX_QUERY_LENGTH})`);
  }
  const src = new SourceText(query);
  try {
    const statement = new Parser(src, lex(src)).statement();
    checkDepth(statement);
    return statement;
  } catch (e) {
    if (isTabletopError(e)) throw e;
    if (e instanceof RangeError) throw errorAt({ line: 1, column: 1 }, 'the query is nested too deeply');
    throw e;
  }
}

const COMPARISON_OPS = new Set(['=', '!=', '<', '<=', '>', '>=']);
/** Binary operator levels from the loosest to the tightest, below comparison (GoogleSQL's precedence). */
const BINARY_LEVELS: readonly (readonly BinaryOp[])[] = [['|'], ['^'], ['&'], ['<<', '>>'], ['+', '-'], ['*', '/', '||']];
const SUBSCRIPT_MODES = new Set(['OFFSET', 'SAFE_OFFSET', 'ORDINAL', 'SAFE_ORDINAL', 'KEY', 'SAFE_KEY']);
const JOIN_WORDS = new Set(['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'NATURAL', 'OUTER', 'CROSS']);
const INT64_MAX = (1n << 63n) - 1n;

class Parser {
  private i = 0;
  private recursion = 0;

  constructor(
    private readonly src: SourceText,
    private readonly tokens: Token[],
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Statements

  statement(): Statement {
    const first = this.peek();
    if (first.kind === 'ident' && NON_QUERY_STATEMENTS.has(first.upper)) {
      throw this.err(first, `${UNSUPPORTED}: ${NON_QUERY_STATEMENTS.get(first.upper)!} is not supported`);
    }
    if (this.isKw('WITH')) throw this.err(first, `${UNSUPPORTED}: WITH (common table expressions) is not supported`);
    const query = this.query();
    const t = this.peek();
    if (this.isKw('UNION') || this.isKw('INTERSECT') || this.isKw('EXCEPT')) {
      throw this.err(t, `${UNSUPPORTED}: set operations (${t.upper}) are not supported`);
    }
    if (this.isOp(';')) {
      this.next();
      if (this.peek().kind !== 'eof')
        throw this.err(this.peek(), `${UNSUPPORTED}: a request holds one statement, and this is a second one`);
    }
    this.expectEnd();
    return query;
  }

  private expectEnd(): void {
    const t = this.peek();
    if (t.kind === 'eof') return;
    if (t.kind === 'ident' && JOIN_WORDS.has(t.upper)) this.rejectJoin(t);
    throw this.expected('end of input', t);
  }

  /** `select | ( query )`, with ORDER BY and LIMIT after a parenthesised query. */
  private query(): Select {
    return this.nested(() => {
      if (!this.isOp('(')) return this.select();
      this.next();
      const inner = this.query();
      this.expectOp(')');
      const orderBy = this.orderByClause();
      const { limit, offset } = this.limitClause();
      if ((orderBy.length > 0 && inner.orderBy.length > 0) || (limit !== null && inner.limit !== null)) {
        throw this.err(this.tokens[this.i - 1]!, 'Syntax error: ORDER BY or LIMIT both inside and outside parentheses is not supported');
      }
      return {
        ...inner,
        orderBy: orderBy.length > 0 ? orderBy : inner.orderBy,
        limit: limit ?? inner.limit,
        offset: offset ?? inner.offset,
      };
    });
  }

  private select(): Select {
    const start = this.expectKw('SELECT');
    if (this.isKw('AS')) throw this.err(this.peek(), `${UNSUPPORTED}: SELECT AS STRUCT and SELECT AS VALUE are not supported`);
    const distinct = this.acceptKw('DISTINCT');
    if (!distinct) this.acceptKw('ALL');
    const items = this.commaList(() => this.selectItem());
    const from = this.acceptKw('FROM') ? this.fromClause() : null;
    const where = this.clauseWithoutFrom('WHERE', from) ? this.expr() : null;
    let groupBy: Expr[] = [];
    if (this.clauseWithoutFrom('GROUP', from)) {
      this.expectKw('BY');
      for (const word of ['ROLLUP', 'CUBE', 'GROUPING', 'ALL']) {
        if (this.isKw(word)) throw this.err(this.peek(), `${UNSUPPORTED}: GROUP BY ${word} is not supported`);
      }
      groupBy = this.commaList(() => this.expr());
    }
    const having = this.clauseWithoutFrom('HAVING', from) ? this.expr() : null;
    for (const word of ['QUALIFY', 'WINDOW']) {
      if (this.isKw(word)) throw this.err(this.peek(), `${UNSUPPORTED}: ${word} is not supported`);
    }
    const orderBy = this.orderByClause();
    const { limit, offset } = this.limitClause();
    return { kind: 'select', pos: start.pos, distinct, items, from, where, groupBy, having, orderBy, limit, offset };
  }

  /** Accepts the clause keyword; a query without FROM cannot have it (as in GoogleSQL). */
  private clauseWithoutFrom(word: string, from: From | null): boolean {
    if (!this.isKw(word)) return false;
    if (from === null)
      throw this.err(this.peek(), `Syntax error: a query without FROM cannot have ${word === 'GROUP' ? 'GROUP BY' : word}`);
    this.next();
    return true;
  }

  private orderByClause(): OrderItem[] {
    if (!this.acceptKw('ORDER')) return [];
    this.expectKw('BY');
    return this.commaList(() => this.orderItem());
  }

  private orderItem(): OrderItem {
    const pos = this.peek().pos;
    const expr = this.expr();
    let direction: 'ASC' | 'DESC' = 'ASC';
    let explicitDirection = false;
    if (this.acceptKw('ASC')) explicitDirection = true;
    else if (this.acceptKw('DESC')) [direction, explicitDirection] = ['DESC', true];
    let nulls: 'FIRST' | 'LAST' | null = null;
    if (this.acceptKw('NULLS')) {
      const t = this.peek();
      if (t.kind !== 'ident' || (t.upper !== 'FIRST' && t.upper !== 'LAST')) throw this.expected('FIRST or LAST', t);
      this.next();
      nulls = t.upper as 'FIRST' | 'LAST';
    }
    return { pos, expr, direction, explicitDirection, nulls };
  }

  private limitClause(): { limit: Expr | null; offset: Expr | null } {
    if (!this.acceptKw('LIMIT')) return { limit: null, offset: null };
    const limit = this.expr();
    const offset = this.acceptKw('OFFSET') ? this.expr() : null;
    return { limit, offset };
  }

  private selectItem(): SelectItem {
    const t = this.peek();
    if (this.isOp('*')) {
      this.next();
      return this.starModifiers(t.pos, null);
    }
    const expr = this.expr();
    if (this.isOp('.') && this.isOp('*', 1)) {
      this.next();
      this.next();
      return this.starModifiers(t.pos, expr);
    }
    return { kind: 'expr', pos: t.pos, expr, alias: this.alias() };
  }

  private starModifiers(pos: Pos, qualifier: Expr | null): StarItem {
    let except: Ident[] = [];
    let replace: { expr: Expr; name: Ident }[] = [];
    if (this.acceptKw('EXCEPT')) {
      this.expectOp('(');
      except = this.commaList(() => this.identifier('a column name'));
      this.expectOp(')');
    }
    if (this.isKw('REPLACE') && this.isOp('(', 1)) {
      this.next();
      this.next();
      replace = this.commaList(() => {
        const expr = this.expr();
        this.expectKw('AS');
        return { expr, name: this.identifier('a column name') };
      });
      this.expectOp(')');
    }
    return { kind: 'star', pos, qualifier, except, replace };
  }

  /** `[AS] name`, or null. */
  private alias(): Ident | null {
    if (this.acceptKw('AS')) return this.identifier('an alias');
    const t = this.peek();
    if (t.kind === 'quotedIdent' || (t.kind === 'ident' && !RESERVED.has(t.upper))) return this.identifier('an alias');
    return null;
  }

  // -------------------------------------------------------------------------------------------------------------
  // FROM

  private fromClause(): From {
    const pos = this.peek().pos;
    const source = this.fromItem();
    const unnests: UnnestJoin[] = [];
    for (;;) {
      const t = this.peek();
      if (this.isOp(',')) {
        this.next();
        unnests.push({ pos: t.pos, join: 'comma', unnest: this.joinedUnnest() });
      } else if (this.isKw('CROSS') && this.isKw('JOIN', 1)) {
        this.next();
        this.next();
        unnests.push({ pos: t.pos, join: 'cross', unnest: this.joinedUnnest() });
      } else if (t.kind === 'ident' && JOIN_WORDS.has(t.upper)) {
        this.rejectJoin(t);
      } else {
        return { pos, source, unnests };
      }
    }
  }

  private rejectJoin(t: Token): never {
    throw this.err(t, `${UNSUPPORTED}: JOIN is not supported (only UNNEST may follow FROM's table: FROM t, UNNEST(array) AS x)`);
  }

  private fromItem(): TableSource {
    const t = this.peek();
    if (this.isOp('(')) {
      this.next();
      if (!this.isKw('SELECT') && !this.isOp('(')) throw this.expected('SELECT', this.peek());
      const query = this.query();
      this.expectOp(')');
      return { kind: 'subquery', pos: t.pos, query, alias: this.alias() };
    }
    if (this.isKw('UNNEST')) return { kind: 'unnest', pos: t.pos, unnest: this.unnest() };
    if (this.isKw('UNPACK') && this.isOp('(', 1) && (this.isOp('(', 2) || this.isKw('SELECT', 2))) {
      this.next();
      this.next();
      const doubled = this.acceptOp('(');
      const query = this.query();
      if (doubled) this.expectOp(')');
      this.expectOp(')');
      return { kind: 'unpack', pos: t.pos, query, alias: this.alias() };
    }
    const name = this.tablePath();
    let args: NamedArg[] | null = null;
    if (this.acceptOp('(')) {
      args = this.isOp(')') ? [] : this.commaList(() => this.namedArg(`the arguments of table ${name.map((n) => n.name).join('.')}`));
      this.expectOp(')');
    }
    if (this.isKw('TABLESAMPLE') || this.isKw('FOR')) throw this.err(this.peek(), `${UNSUPPORTED}: ${this.peek().upper} is not supported`);
    return { kind: 'table', pos: t.pos, name, args, alias: this.alias() };
  }

  private tablePath(): Ident[] {
    const parts = [this.identifier('a table name')];
    while (this.isOp('.') && this.isNameToken(1)) {
      this.next();
      parts.push(this.fieldName());
    }
    return parts;
  }

  private namedArg(what: string): NamedArg {
    const t = this.peek();
    if (!(this.isNameToken(0) && this.isOp('=>', 1))) throw this.err(t, `Syntax error: ${what} must be named (name => value)`);
    const name = this.identifier('an argument name');
    this.expectOp('=>');
    return { pos: t.pos, name, value: this.expr() };
  }

  /** After `,` or `CROSS JOIN`: `UNNEST(e) ...` or a path into the row (`t.arr AS x`); another table is a JOIN. */
  private joinedUnnest(): Unnest {
    const t = this.peek();
    if (this.isKw('UNNEST')) return this.unnest();
    if (this.isOp('(')) this.rejectJoin(t);
    const path = this.postfix(this.primary());
    if (path.kind !== 'field') this.rejectJoin(t);
    return this.unnestTail(t.pos, path, false);
  }

  private unnest(): Unnest {
    const start = this.expectKw('UNNEST');
    this.expectOp('(');
    const expr = this.expr();
    this.expectOp(')');
    return this.unnestTail(start.pos, expr, true);
  }

  private unnestTail(pos: Pos, expr: Expr, explicit: boolean): Unnest {
    const alias = this.alias();
    let withOffset: Unnest['withOffset'] = null;
    const t = this.peek();
    if (this.acceptKw('WITH')) {
      if (!this.isKw('OFFSET')) throw this.expected('OFFSET', this.peek());
      this.next();
      withOffset = { pos: t.pos, alias: this.alias() };
    }
    return { pos, expr, explicit, alias, withOffset };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Expressions, from the loosest operator to the tightest

  expr(): Expr {
    return this.nested(() => this.or());
  }

  private or(): Expr {
    return this.logical('OR', () => this.and());
  }

  private and(): Expr {
    return this.logical('AND', () => this.not());
  }

  /** A left-associative chain of AND or OR. */
  private logical(word: 'AND' | 'OR', operand: () => Expr): Expr {
    let left = operand();
    while (this.isKw(word)) {
      const op = this.next();
      left = this.binary(word, left, op, operand());
    }
    return left;
  }

  private not(): Expr {
    const nots: Token[] = [];
    while (this.isKw('NOT')) nots.push(this.next());
    let e = this.comparison();
    for (let k = nots.length - 1; k >= 0; k--) e = { kind: 'unary', pos: nots[k]!.pos, op: 'NOT', operand: e };
    return e;
  }

  /** One comparison, IS, IN, BETWEEN or LIKE: they do not associate (`a = b = c` needs parentheses). */
  private comparison(): Expr {
    const left = this.binaryLevel(0);
    const e = this.comparisonTail(left);
    if (e !== left && this.startsComparison()) {
      throw this.err(this.peek(), 'Syntax error: comparison operators do not associate: add parentheses, as in (a = b) = c');
    }
    return e;
  }

  private startsComparison(): boolean {
    const t = this.peek();
    if (t.kind === 'op') return COMPARISON_OPS.has(t.text);
    return (
      ['IS', 'IN', 'BETWEEN', 'LIKE'].some((w) => this.isKw(w)) ||
      (this.isKw('NOT') && ['IN', 'BETWEEN', 'LIKE'].some((w) => this.isKw(w, 1)))
    );
  }

  private comparisonTail(left: Expr): Expr {
    const t = this.peek();
    if (t.kind === 'op' && COMPARISON_OPS.has(t.text)) {
      this.next();
      return this.binary(t.text as BinaryOp, left, t, this.binaryLevel(0));
    }
    if (this.isKw('IS')) {
      this.next();
      const not = this.acceptKw('NOT');
      const what = this.peek();
      if (what.kind === 'ident' && (what.upper === 'NULL' || what.upper === 'TRUE' || what.upper === 'FALSE')) {
        this.next();
        return { kind: 'is', pos: left.pos, opPos: t.pos, expr: left, not, test: what.upper as 'NULL' | 'TRUE' | 'FALSE' };
      }
      if (this.isKw('DISTINCT')) throw this.err(what, `${UNSUPPORTED}: IS [NOT] DISTINCT FROM is not supported`);
      throw this.expected('NULL, TRUE or FALSE', what);
    }
    const not = this.isKw('NOT') && ['IN', 'BETWEEN', 'LIKE'].some((w) => this.isKw(w, 1));
    if (not) this.next();
    if (this.acceptKw('IN')) return this.inTail(left, t.pos, not);
    if (this.acceptKw('BETWEEN')) {
      const low = this.binaryLevel(0);
      this.expectKw('AND');
      const high = this.binaryLevel(0);
      return { kind: 'between', pos: left.pos, opPos: t.pos, expr: left, not, low, high };
    }
    if (this.acceptKw('LIKE')) {
      if (this.isKw('ANY') || this.isKw('SOME') || this.isKw('ALL')) {
        throw this.err(this.peek(), `${UNSUPPORTED}: LIKE ${this.peek().upper} is not supported`);
      }
      return { kind: 'like', pos: left.pos, opPos: t.pos, expr: left, not, pattern: this.binaryLevel(0) };
    }
    return left;
  }

  private inTail(left: Expr, opPos: Pos, not: boolean): InExpr {
    const base = { kind: 'in' as const, pos: left.pos, opPos, expr: left, not };
    if (this.isKw('UNNEST')) {
      this.next();
      this.expectOp('(');
      const array = this.expr();
      this.expectOp(')');
      return { ...base, target: { kind: 'unnest', array } };
    }
    this.expectOp('(');
    if (this.isKw('SELECT')) {
      const query = this.query();
      this.expectOp(')');
      return { ...base, target: { kind: 'subquery', query } };
    }
    const items = this.commaList(() => this.expr());
    this.expectOp(')');
    return { ...base, target: { kind: 'list', items } };
  }

  /** The left-associative binary operators below comparison, level by level (BINARY_LEVELS). */
  private binaryLevel(level: number): Expr {
    const ops = BINARY_LEVELS[level];
    if (ops === undefined) return this.unary();
    let left = this.binaryLevel(level + 1);
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !(ops as readonly string[]).includes(t.text)) return left;
      this.next();
      left = this.binary(t.text as BinaryOp, left, t, this.binaryLevel(level + 1));
    }
  }

  private binary(op: BinaryOp, left: Expr, opToken: Token, right: Expr): Expr {
    return { kind: 'binary', pos: left.pos, opPos: opToken.pos, op, left, right };
  }

  /** Prefix `-`, `+`, `~` (tighter than `*`, looser than `.` and `[]`); `-` before an integer literal is part of it. */
  private unary(): Expr {
    const ops: Token[] = [];
    while (this.isOp('-') || this.isOp('+') || this.isOp('~')) ops.push(this.next());
    let e: Expr;
    const last = ops[ops.length - 1];
    if (last?.text === '-' && this.peek().kind === 'int') {
      ops.pop();
      e = this.postfix(this.intLiteral(this.next(), last));
    } else {
      e = this.postfix(this.primary());
    }
    for (let k = ops.length - 1; k >= 0; k--) e = { kind: 'unary', pos: ops[k]!.pos, op: ops[k]!.text as '-' | '+' | '~', operand: e };
    return e;
  }

  /** `.field` and `[index]`, `[OFFSET(i)]`, `[SAFE_OFFSET(i)]`, `[ORDINAL(i)]`, `[SAFE_ORDINAL(i)]`. */
  private postfix(e: Expr): Expr {
    for (;;) {
      if (this.isOp('.') && !this.isOp('*', 1)) {
        this.next();
        e = { kind: 'field', pos: e.pos, expr: e, field: this.fieldName() };
      } else if (this.isOp('[')) {
        const open = this.next();
        let mode: SubscriptExpr['mode'] = 'index';
        let index: Expr;
        const t = this.peek();
        if (t.kind === 'ident' && SUBSCRIPT_MODES.has(t.upper) && this.isOp('(', 1)) {
          this.next();
          this.next();
          mode = t.upper as typeof mode;
          index = this.expr();
          this.expectOp(')');
        } else {
          index = this.expr();
        }
        this.expectOp(']');
        e = { kind: 'subscript', pos: e.pos, opPos: open.pos, expr: e, mode, index };
      } else {
        return e;
      }
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'int':
        return this.intLiteral(this.next(), null);
      case 'float': {
        this.next();
        const value = Number(t.text);
        if (!Number.isFinite(value)) throw this.err(t, `Syntax error: the floating-point literal ${t.text} is out of range for FLOAT64`);
        return { kind: 'float', pos: t.pos, value, text: t.text };
      }
      case 'string':
      case 'bytes':
        return this.adjacentLiterals();
      case 'param':
        this.next();
        return { kind: 'param', pos: t.pos, name: t.value };
      case 'quotedIdent':
        return this.pathOrCall();
      case 'ident':
        return this.wordExpr(t);
      case 'op':
        if (t.text === '(') return this.parenthesised();
        if (t.text === '[') return this.arrayElements(t.pos, null);
        if (t.text === '?') throw this.err(t, `${UNSUPPORTED}: positional parameters (?) are not supported; name them: @name`);
        throw this.expected('an expression', t);
      case 'eof':
        throw this.expected('an expression', t);
    }
  }

  /** A string or bytes literal, and the literals of the same kind right after it, concatenated ('a' 'b'). */
  private adjacentLiterals(): Expr {
    const first = this.next();
    let text = first.value;
    const bytes: number[] = first.kind === 'bytes' ? Array.from(first.bytes!) : [];
    while (this.peek().kind === 'string' || this.peek().kind === 'bytes') {
      const t = this.next();
      if (!t.spaceBefore) throw this.err(t, 'Syntax error: concatenated string literals must be separated by whitespace or comments');
      if (t.kind !== first.kind) throw this.err(t, 'Syntax error: string and bytes literals cannot be concatenated');
      if (t.kind === 'bytes') bytes.push(...t.bytes!);
      else text += t.value;
    }
    return first.kind === 'bytes'
      ? { kind: 'bytes', pos: first.pos, value: Uint8Array.from(bytes) }
      : { kind: 'string', pos: first.pos, value: text };
  }

  /** An expression that starts with a word: a keyword form, a typed literal, a call or a path. */
  private wordExpr(t: Token): Expr {
    const w = t.upper;
    if (w === 'TRUE' || w === 'FALSE') {
      this.next();
      return { kind: 'bool', pos: t.pos, value: w === 'TRUE' };
    }
    if (w === 'NULL') {
      this.next();
      return { kind: 'null', pos: t.pos };
    }
    if (w === 'CASE') return this.caseExpr();
    if (w === 'CAST' || (w === 'SAFE_CAST' && this.isOp('(', 1))) return this.cast();
    if (w === 'EXTRACT') return this.extract();
    if (w === 'INTERVAL') return this.interval();
    if (w === 'ARRAY') return this.arrayExpr();
    if (w === 'STRUCT') return this.structExpr();
    if (w === 'EXISTS') {
      this.next();
      return this.subqueryInParens(t.pos, 'exists');
    }
    if (KEYWORD_FUNCTIONS.has(w) && this.isOp('(', 1)) {
      this.next();
      return this.call(t.pos, [{ pos: t.pos, name: t.text, quoted: false }]);
    }
    if (TYPED_LITERALS.has(w)) {
      const lit = this.peek(1);
      if (lit.kind === 'string') {
        this.next();
        this.next();
        return { kind: 'typedLiteral', pos: t.pos, type: w as TypedLiteral['type'], text: lit.value };
      }
    }
    if (NILADIC_FUNCTIONS.has(w) && !this.isOp('(', 1) && !this.isOp('.', 1)) {
      this.next();
      return callOf(t.pos, [{ pos: t.pos, name: t.text, quoted: false }], []);
    }
    if (RESERVED.has(w)) throw this.expected('an expression', t);
    return this.pathOrCall();
  }

  /** `a` (postfix() reads `.b.c`), or a call `f(...)`, `SAFE.f(...)`, `HLL_COUNT.MERGE(...)`. */
  private pathOrCall(): Expr {
    const first = this.peek();
    const parts = [this.identifier('an expression')];
    let k = 0;
    while (this.isOp('.', k) && this.isNameToken(k + 1)) k += 2;
    if (k > 0 && this.isOp('(', k)) {
      while (this.acceptOp('.')) parts.push(this.fieldName());
    }
    if (this.isOp('(')) return this.call(first.pos, parts);
    return { kind: 'ident', pos: first.pos, ident: parts[0]! };
  }

  private call(pos: Pos, name: Ident[]): CallExpr {
    this.expectOp('(');
    let distinct = false;
    let star = false;
    const args: Expr[] = [];
    const namedArgs: NamedArg[] = [];
    if (this.isOp('*') && this.isOp(')', 1)) {
      this.next();
      star = true;
    } else if (!this.isOp(')')) {
      distinct = this.acceptKw('DISTINCT');
      do {
        if (this.isNameToken(0) && this.isOp('=>', 1)) {
          namedArgs.push(this.namedArg('a named argument'));
        } else {
          if (namedArgs.length > 0) throw this.err(this.peek(), 'Syntax error: positional arguments must come before named arguments');
          args.push(this.lambdaOr());
        }
      } while (this.acceptOp(','));
    }
    let nulls: 'IGNORE' | 'RESPECT' | null = null;
    if (this.isKw('IGNORE') || this.isKw('RESPECT')) {
      nulls = this.next().upper as 'IGNORE' | 'RESPECT';
      this.expectKw('NULLS');
    }
    const orderBy = this.orderByClause();
    const limit = this.acceptKw('LIMIT') ? this.expr() : null;
    this.expectOp(')');
    if (this.isKw('OVER')) throw this.err(this.peek(), `${UNSUPPORTED}: analytic (window) functions, OVER (...), are not supported`);
    return { kind: 'call', pos, name, distinct, star, args, namedArgs, nulls, orderBy, limit };
  }

  /** A function argument: a lambda `x -> body` / `(x, i) -> body`, or an expression. */
  private lambdaOr(): Expr {
    const t = this.peek();
    let n = 0;
    if (this.isNameToken(0) && this.isOp('->', 1)) n = 1;
    else if (this.isOp('(')) {
      let k = 1;
      while (this.isNameToken(k) && this.isOp(',', k + 1)) k += 2;
      if (this.isNameToken(k) && this.isOp(')', k + 1) && this.isOp('->', k + 2)) n = (k + 1) / 2;
    }
    if (n === 0) return this.expr();
    const paren = this.acceptOp('(');
    const params: Ident[] = [];
    for (let i = 0; i < n; i++) {
      if (i > 0) this.expectOp(',');
      params.push(this.identifier('a lambda parameter'));
    }
    if (paren) this.expectOp(')');
    this.expectOp('->');
    return { kind: 'lambda', pos: t.pos, params, body: this.expr() };
  }

  /** `( expr )`, a tuple `(a, b)`, or a scalar subquery `(SELECT ...)`. */
  private parenthesised(): Expr {
    const open = this.peek();
    if (this.isKw('SELECT', 1)) return this.subqueryInParens(open.pos, 'scalar');
    this.next();
    const first = this.expr();
    if (!this.isOp(',')) {
      this.expectOp(')');
      return first;
    }
    const fields = [{ expr: first, alias: null }];
    while (this.acceptOp(',')) fields.push({ expr: this.expr(), alias: null });
    this.expectOp(')');
    return { kind: 'struct', pos: open.pos, syntax: 'tuple', type: null, fields };
  }

  private subqueryInParens(pos: Pos, mode: 'scalar' | 'array' | 'exists'): Expr {
    this.expectOp('(');
    if (!this.isKw('SELECT') && !this.isOp('(')) throw this.expected('SELECT', this.peek());
    const query = this.query();
    this.expectOp(')');
    return { kind: 'subquery', pos, mode, query };
  }

  private arrayExpr(): Expr {
    const start = this.expectKw('ARRAY');
    if (this.isOp('(')) return this.subqueryInParens(start.pos, 'array');
    let elementType: TypeExpr | null = null;
    if (this.acceptOp('<')) {
      elementType = this.type();
      this.closeAngle();
    }
    if (!this.isOp('[')) throw this.expected('"["', this.peek());
    return this.arrayElements(start.pos, elementType);
  }

  private arrayElements(pos: Pos, elementType: TypeExpr | null): ArrayExpr {
    this.expectOp('[');
    const elements = this.isOp(']') ? [] : this.commaList(() => this.expr());
    this.expectOp(']');
    return { kind: 'array', pos, elementType, elements };
  }

  private structExpr(): StructExpr {
    const start = this.expectKw('STRUCT');
    let type: StructType | null = null;
    if (this.isOp('<')) type = this.structTypeBody(start.pos);
    this.expectOp('(');
    const fields = this.isOp(')')
      ? []
      : this.commaList(() => {
          const expr = this.expr();
          return { expr, alias: this.acceptKw('AS') ? this.identifier('a field name') : null };
        });
    this.expectOp(')');
    return { kind: 'struct', pos: start.pos, syntax: 'struct', type, fields };
  }

  private caseExpr(): Expr {
    const start = this.expectKw('CASE');
    const operand = this.isKw('WHEN') ? null : this.expr();
    const whens: { when: Expr; then: Expr }[] = [];
    if (!this.isKw('WHEN')) throw this.expected('WHEN', this.peek());
    while (this.acceptKw('WHEN')) {
      const when = this.expr();
      this.expectKw('THEN');
      whens.push({ when, then: this.expr() });
    }
    const otherwise = this.acceptKw('ELSE') ? this.expr() : null;
    this.expectKw('END');
    return { kind: 'case', pos: start.pos, operand, whens, else: otherwise };
  }

  private cast(): Expr {
    const start = this.next();
    this.expectOp('(');
    const expr = this.expr();
    this.expectKw('AS');
    const type = this.type();
    const format = this.acceptKw('FORMAT') ? this.expr() : null;
    this.expectOp(')');
    return { kind: 'cast', pos: start.pos, safe: start.upper === 'SAFE_CAST', expr, type, format };
  }

  private extract(): Expr {
    const start = this.expectKw('EXTRACT');
    this.expectOp('(');
    const part = this.datePart();
    this.expectKw('FROM');
    const expr = this.expr();
    let timeZone: Expr | null = null;
    if (this.acceptKw('AT')) {
      if (!this.isKw('TIME') || !this.isKw('ZONE', 1)) throw this.expected('TIME ZONE', this.peek());
      this.next();
      this.next();
      timeZone = this.expr();
    }
    this.expectOp(')');
    return { kind: 'extract', pos: start.pos, part, expr, timeZone };
  }

  private interval(): Expr {
    const start = this.expectKw('INTERVAL');
    const value = this.expr();
    const part = this.datePart();
    const toPart = this.acceptKw('TO') ? this.datePart() : null;
    return { kind: 'interval', pos: start.pos, value, part, toPart };
  }

  /** `DAY`, `WEEK(MONDAY)`, ... (a word; the analyzer checks it). */
  private datePart(): DatePart {
    const t = this.peek();
    if (t.kind !== 'ident' || RESERVED.has(t.upper)) throw this.expected('a date or time part (DAY, HOUR, ...)', t);
    this.next();
    let weekday: string | null = null;
    if (this.acceptOp('(')) {
      const w = this.peek();
      if (w.kind !== 'ident') throw this.expected('a weekday (SUNDAY, ...)', w);
      this.next();
      weekday = w.upper;
      this.expectOp(')');
    }
    return { pos: t.pos, name: t.upper, weekday };
  }

  private intLiteral(t: Token, minus: Token | null): Expr {
    const negative = minus !== null;
    const magnitude = BigInt(t.text);
    const value = negative ? -magnitude : magnitude;
    if (value > INT64_MAX || value < -INT64_MAX - 1n) {
      throw this.err(minus ?? t, `Syntax error: the integer literal ${negative ? '-' : ''}${t.text} is out of range for INT64`);
    }
    return { kind: 'int', pos: (minus ?? t).pos, value, text: (negative ? '-' : '') + t.text };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Types

  private type(): TypeExpr {
    return this.nested(() => {
      const t = this.peek();
      if (t.kind !== 'ident') throw this.expected('a type', t);
      if (t.upper === 'ARRAY') {
        this.next();
        this.expectOp('<');
        const element = this.type();
        this.closeAngle();
        return { kind: 'arrayType', pos: t.pos, element };
      }
      if (t.upper === 'STRUCT') {
        this.next();
        return this.structTypeBody(t.pos);
      }
      if (t.upper === 'MAP' && this.isOp('<', 1)) {
        this.next();
        this.next();
        const key = this.type();
        this.expectOp(',');
        const value = this.type();
        this.closeAngle();
        return { kind: 'mapType', pos: t.pos, key, value };
      }
      if (RESERVED.has(t.upper)) throw this.expected('a type', t);
      this.next();
      return { kind: 'namedType', pos: t.pos, name: t.upper };
    });
  }

  /** `<[name] type, ...>` after STRUCT. */
  private structTypeBody(pos: Pos): StructType {
    this.expectOp('<');
    const fields: { name: Ident | null; type: TypeExpr }[] = [];
    if (!this.isCloseAngle()) {
      do {
        const named = this.isNameToken(0) && !this.isOp(',', 1) && !this.isOp('<', 1) && !this.isOp('>', 1) && !this.isOp('>>', 1);
        const name = named ? this.identifier('a field name') : null;
        fields.push({ name, type: this.type() });
      } while (this.acceptOp(','));
    }
    this.closeAngle();
    return { kind: 'structType', pos, fields };
  }

  private isCloseAngle(): boolean {
    return this.isOp('>') || this.isOp('>>');
  }

  /** Consumes one `>`, splitting a `>>` (`ARRAY<ARRAY<INT64>>`). */
  private closeAngle(): void {
    const t = this.peek();
    if (this.isOp('>')) {
      this.next();
      return;
    }
    if (this.isOp('>>')) {
      const offset = t.pos.offset + 1;
      this.tokens[this.i] = { ...t, text: '>', pos: { offset, line: t.pos.line, column: t.pos.column + 1 }, spaceBefore: false };
      return;
    }
    throw this.expected('">"', t);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Tokens

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.i + k, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'op' && t.text === text;
  }

  /** The word `w` unquoted, in any case: a reserved keyword, or a word that is a keyword here (OFFSET, UNPACK...). */
  private isKw(w: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'ident' && t.upper === w;
  }

  /** A word or a backquoted name at `k` (reserved words included: after a dot, any word is a name). */
  private isNameToken(k: number): boolean {
    const t = this.peek(k);
    return t.kind === 'ident' || t.kind === 'quotedIdent';
  }

  private acceptOp(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.next();
    return true;
  }

  private acceptKw(w: string): boolean {
    if (!this.isKw(w)) return false;
    this.next();
    return true;
  }

  private expectOp(text: string): Token {
    if (!this.isOp(text)) throw this.expected(`"${text}"`, this.peek());
    return this.next();
  }

  private expectKw(w: string): Token {
    if (!this.isKw(w)) throw this.expected(w, this.peek());
    return this.next();
  }

  /** An identifier: a non-reserved word or a backquoted name. */
  private identifier(what: string): Ident {
    const t = this.peek();
    if (t.kind === 'quotedIdent' || (t.kind === 'ident' && !RESERVED.has(t.upper))) {
      this.next();
      return identOf(t);
    }
    throw this.expected(what, t);
  }

  /** A name after a dot: any word, reserved or not, or a backquoted name. */
  private fieldName(): Ident {
    const t = this.peek();
    if (!this.isNameToken(0)) throw this.expected('a field name', t);
    this.next();
    return identOf(t);
  }

  private commaList<T>(item: () => T): T[] {
    const out = [item()];
    while (this.acceptOp(',')) out.push(item());
    return out;
  }

  /** Runs a nested production, bounding the parser's recursion. */
  private nested<T>(f: () => T): T {
    if (++this.recursion > MAX_PARSER_RECURSION) {
      throw this.err(
        this.peek(),
        `the query is nested too deeply (more than ${MAX_PARSER_RECURSION} levels of parentheses, calls or subqueries)`,
      );
    }
    try {
      return f();
    } finally {
      this.recursion--;
    }
  }

  private expected(what: string, t: Token): Error {
    return this.err(t, `Syntax error: expected ${what} but got ${describe(t)}`);
  }

  private err(t: Token, message: string): Error {
    return this.src.error(t.pos.offset, message);
  }
}

function identOf(t: Token): Ident {
  return { pos: t.pos, name: t.kind === 'ident' ? t.text : t.value, quoted: t.kind === 'quotedIdent' };
}

function callOf(pos: Pos, name: Ident[], args: Expr[]): CallExpr {
  return { kind: 'call', pos, name, distinct: false, star: false, args, namedArgs: [], nulls: null, orderBy: [], limit: null };
}

/** How an error names a token: `keyword FROM`, `identifier foo`, `string literal 'x'`, `")"`, `end of input`. */
function describe(t: Token): string {
  const shown = (s: string): string => (s.length > 40 ? `${s.slice(0, 37)}...` : s);
  switch (t.kind) {
    case 'eof':
      return 'end of input';
    case 'ident':
      return RESERVED.has(t.upper) ? `keyword ${t.upper}` : `identifier ${shown(t.text)}`;
    case 'quotedIdent':
      return `identifier ${shown(t.text)}`;
    case 'int':
      return `integer literal ${shown(t.text)}`;
    case 'float':
      return `floating-point literal ${shown(t.text)}`;
    case 'string':
      return `string literal ${shown(t.text)}`;
    case 'bytes':
      return `bytes literal ${shown(t.text)}`;
    case 'param':
      return `parameter ${shown(t.text)}`;
    case 'op':
      return `"${t.text}"`;
  }
}

/**
 * Checks that the tree is at most MAX_NESTING nodes deep (a chain `a + b + c ...` nests left-deep without
 * recursing in the parser), without recursion, so that every later pass may recurse over it.
 */
function checkDepth(root: Statement): void {
  const nodes: unknown[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>;
    let depth = depths.pop()!;
    if ('kind' in node && 'pos' in node && ++depth > MAX_NESTING) {
      throw errorAt(node['pos'] as Pos, `the query is nested too deeply (more than ${MAX_NESTING} levels of expressions)`);
    }
    for (const key in node) {
      const value = node[key];
      if (typeof value === 'object' && value !== null && key !== 'pos' && key !== 'opPos' && !(value instanceof Uint8Array)) {
        nodes.push(value);
        depths.push(depth);
      }
    }
  }
}
