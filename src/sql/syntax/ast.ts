/**
 * The syntax tree of GoogleSQL for Bigtable, as `parse(query): Statement` (src/sql/syntax/parse.ts) builds it.
 *
 * Contract: the tree says what the query wrote, nothing more. Names are kept as
 * written (case and backquotes: `quoted`), keywords are upper-cased, and no name
 * is resolved and no type checked: the analyzer does that. Every node carries
 * the position of its first character (`pos`), which errors name as
 * `line L, column C`; an operator node also carries the position of its
 * operator (`opPos`). The tree is plain data (no classes), readonly, and
 * JSON-printable except for `bigint` and `Uint8Array` literal values.
 *
 * The grammar covers more than Bigtable accepts in places (scalar subqueries,
 * `ARRAY(subquery)`, `EXISTS`): the parser builds those nodes so that the
 * analyzer can reject them by position with the service's message.
 */

/** A place in the query: `offset` in UTF-16 code units from 0; `line` and `column` from 1 (column in code points). */
export interface Pos {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** An identifier as written: `name` without backquotes, escapes resolved; `quoted` when it was backquoted. */
export interface Ident {
  readonly pos: Pos;
  readonly name: string;
  readonly quoted: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Statements

/** Bigtable's GoogleSQL answers only queries: a statement is one SELECT. */
export type Statement = Select;

/**
 * One SELECT with its ORDER BY and LIMIT (`(SELECT ...) ORDER BY ... LIMIT ...` folds into it). The parser takes
 * GoogleSQL's clauses; Bigtable's reference grammar is narrower (it lists `ORDER BY expr [ASC]` and `LIMIT count`,
 * without DISTINCT, HAVING, OFFSET or DESC): the analyzer decides which of these the engine runs, by position.
 * A query without FROM has no WHERE, GROUP BY or HAVING (the parser refuses them, as GoogleSQL does).
 */
export interface Select {
  readonly kind: 'select';
  readonly pos: Pos;
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  /** Null for a query without FROM (`SELECT 1`). */
  readonly from: From | null;
  readonly where: Expr | null;
  readonly groupBy: readonly Expr[];
  readonly having: Expr | null;
  readonly orderBy: readonly OrderItem[];
  readonly limit: Expr | null;
  readonly offset: Expr | null;
}

export type SelectItem = StarItem | ExprItem;

/** `*`, `t.*` or `expr.*`, with optional `EXCEPT (a, b)` and `REPLACE (expr AS name, ...)`. */
export interface StarItem {
  readonly kind: 'star';
  readonly pos: Pos;
  /** What precedes `.*` (a path or any expression); null for a bare `*`. */
  readonly qualifier: Expr | null;
  readonly except: readonly Ident[];
  readonly replace: readonly { readonly expr: Expr; readonly name: Ident }[];
}

export interface ExprItem {
  readonly kind: 'expr';
  readonly pos: Pos;
  readonly expr: Expr;
  /** `AS a` or a bare `a`; null when unaliased (the analyzer names the column). */
  readonly alias: Ident | null;
}

export interface OrderItem {
  readonly pos: Pos;
  readonly expr: Expr;
  readonly direction: 'ASC' | 'DESC';
  /** Whether ASC/DESC was written (the default is ASC). */
  readonly explicitDirection: boolean;
  /** Null when not written (GoogleSQL's default: NULLS FIRST for ASC, NULLS LAST for DESC). */
  readonly nulls: 'FIRST' | 'LAST' | null;
}

// ---------------------------------------------------------------------------------------------------------------
// FROM

/** `FROM source [, UNNEST(e) AS x | CROSS JOIN UNNEST(e) AS x]...` */
export interface From {
  readonly pos: Pos;
  readonly source: TableSource;
  readonly unnests: readonly UnnestJoin[];
}

export type TableSource = TableRef | UnpackSource | SubquerySource | UnnestSource;

/**
 * A table, logical view or materialized view, by name (`t`, `` `bt-table` ``, `` `a.b` ``), optionally called
 * as a table-valued function with named arguments: `t(with_history => TRUE, latest_n => 3)`, `t(as_of => ...)`.
 */
export interface TableRef {
  readonly kind: 'table';
  readonly pos: Pos;
  /** Dotted parts (`a.b` or `` `a`.`b` ``); one part for a plain name. */
  readonly name: readonly Ident[];
  /** Null when the name was not followed by `(...)`; `[]` for `t()`. */
  readonly args: readonly NamedArg[] | null;
  readonly alias: Ident | null;
}

/** `name => value` (table-valued functions' arguments and named function arguments). */
export interface NamedArg {
  readonly pos: Pos;
  readonly name: Ident;
  readonly value: Expr;
}

/** `UNPACK((SELECT ... FROM t(with_history => TRUE)))`: history flattened into rows with a `_timestamp` column. */
export interface UnpackSource {
  readonly kind: 'unpack';
  readonly pos: Pos;
  readonly query: Select;
  readonly alias: Ident | null;
}

/** `FROM (SELECT ...) [AS a]` (parsed; the analyzer says whether Bigtable allows it). */
export interface SubquerySource {
  readonly kind: 'subquery';
  readonly pos: Pos;
  readonly query: Select;
  readonly alias: Ident | null;
}

/** `FROM UNNEST(expr) [AS x] [WITH OFFSET [AS o]]` as the first source. */
export interface UnnestSource {
  readonly kind: 'unnest';
  readonly pos: Pos;
  readonly unnest: Unnest;
}

/** `, UNNEST(e) ...` or `CROSS JOIN UNNEST(e) ...` (also a correlated path `, t.arr AS x`). */
export interface UnnestJoin {
  readonly pos: Pos;
  readonly join: 'comma' | 'cross';
  readonly unnest: Unnest;
}

export interface Unnest {
  readonly pos: Pos;
  /** The array: the argument of `UNNEST(...)`, or a path when written without UNNEST. */
  readonly expr: Expr;
  /** Whether the keyword UNNEST was written (else `expr` is a path, `, t.arr AS x`). */
  readonly explicit: boolean;
  readonly alias: Ident | null;
  /** `WITH OFFSET [AS o]`: null when absent; `alias` null when `WITH OFFSET` has no alias. */
  readonly withOffset: { readonly pos: Pos; readonly alias: Ident | null } | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Expressions

export type Expr =
  | IntLiteral
  | FloatLiteral
  | StringLiteral
  | BytesLiteral
  | BoolLiteral
  | NullLiteral
  | TypedLiteral
  | ArrayExpr
  | StructExpr
  | ParamExpr
  | IdentExpr
  | FieldExpr
  | SubscriptExpr
  | UnaryExpr
  | BinaryExpr
  | IsExpr
  | InExpr
  | BetweenExpr
  | LikeExpr
  | CaseExpr
  | CastExpr
  | CallExpr
  | ExtractExpr
  | IntervalExpr
  | SubqueryExpr
  | LambdaExpr;

/** An integer literal (decimal or `0x` hex), already range-checked as INT64 (`-9223372036854775808` folds the minus in). */
export interface IntLiteral {
  readonly kind: 'int';
  readonly pos: Pos;
  readonly value: bigint;
  /** The source text (`0x1F`, `42`). */
  readonly text: string;
}

/** A floating-point literal (`1.5`, `.5`, `1e10`, `2.`): FLOAT64. */
export interface FloatLiteral {
  readonly kind: 'float';
  readonly pos: Pos;
  readonly value: number;
  readonly text: string;
}

/** `'..'`, `".."`, `'''..'''`, `"""..."""`, raw `r'..'`: escapes resolved. */
export interface StringLiteral {
  readonly kind: 'string';
  readonly pos: Pos;
  readonly value: string;
}

/** `b'..'`, `rb'..'`, `br'..'`: escapes resolved to bytes (`\xHH`, octal `\ooo` give raw bytes; other characters UTF-8). */
export interface BytesLiteral {
  readonly kind: 'bytes';
  readonly pos: Pos;
  readonly value: Uint8Array;
}

export interface BoolLiteral {
  readonly kind: 'bool';
  readonly pos: Pos;
  readonly value: boolean;
}

export interface NullLiteral {
  readonly kind: 'null';
  readonly pos: Pos;
}

/**
 * `DATE '2024-06-01'`, `TIMESTAMP '2024-06-01 12:00:00+00'`, `JSON '{"a":1}'`, `NUMERIC '1.5'`, `BIGNUMERIC`,
 * `DATETIME`, `TIME`: the type keyword and the string as written (escapes resolved); the analyzer parses the text.
 */
export interface TypedLiteral {
  readonly kind: 'typedLiteral';
  readonly pos: Pos;
  readonly type: 'DATE' | 'TIMESTAMP' | 'JSON' | 'NUMERIC' | 'BIGNUMERIC' | 'DATETIME' | 'TIME';
  readonly text: string;
}

/** `[1, 2]`, `ARRAY[1, 2]`, `ARRAY<INT64>[1, 2]`. */
export interface ArrayExpr {
  readonly kind: 'array';
  readonly pos: Pos;
  /** The element type when written `ARRAY<T>[...]`. */
  readonly elementType: TypeExpr | null;
  readonly elements: readonly Expr[];
}

/**
 * `STRUCT(1 AS a, 'x')`, `STRUCT<a INT64, b STRING>(1, 'x')`, or a tuple `(1, 'x')` (two or more fields,
 * unnamed: `syntax: 'tuple'`).
 */
export interface StructExpr {
  readonly kind: 'struct';
  readonly pos: Pos;
  readonly syntax: 'struct' | 'tuple';
  /** The declared type for `STRUCT<...>(...)`. */
  readonly type: (TypeExpr & { readonly kind: 'structType' }) | null;
  readonly fields: readonly { readonly expr: Expr; readonly alias: Ident | null }[];
}

/** `@name` (name without `@`; case kept as written). */
export interface ParamExpr {
  readonly kind: 'param';
  readonly pos: Pos;
  readonly name: string;
}

/** A bare name: a column, a table alias, a range variable (the first part of a path `a.b.c`). */
export interface IdentExpr {
  readonly kind: 'ident';
  readonly pos: Pos;
  readonly ident: Ident;
}

/** `expr.field` (paths `a.b.c` are nested FieldExprs over an IdentExpr; `arr[0].value` too). */
export interface FieldExpr {
  readonly kind: 'field';
  readonly pos: Pos;
  readonly expr: Expr;
  readonly field: Ident;
}

/** `e[i]` (`mode: 'index'`: map key or array offset), `e[OFFSET(i)]`, `e[SAFE_OFFSET(i)]`, `e[ORDINAL(i)]`, `m[KEY(k)]`, ... */
export interface SubscriptExpr {
  readonly kind: 'subscript';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly expr: Expr;
  readonly mode: 'index' | 'OFFSET' | 'SAFE_OFFSET' | 'ORDINAL' | 'SAFE_ORDINAL' | 'KEY' | 'SAFE_KEY';
  readonly index: Expr;
}

export type UnaryOp = '-' | '+' | '~' | 'NOT';

export interface UnaryExpr {
  readonly kind: 'unary';
  readonly pos: Pos;
  readonly op: UnaryOp;
  readonly operand: Expr;
}

/** `<>` is read as `!=`. */
export type BinaryOp = '*' | '/' | '+' | '-' | '||' | '<<' | '>>' | '&' | '^' | '|' | '=' | '!=' | '<' | '<=' | '>' | '>=' | 'AND' | 'OR';

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}

/** `e IS [NOT] NULL | TRUE | FALSE`. */
export interface IsExpr {
  readonly kind: 'is';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly expr: Expr;
  readonly not: boolean;
  readonly test: 'NULL' | 'TRUE' | 'FALSE';
}

/** `e [NOT] IN (a, b)`, `e [NOT] IN UNNEST(arr)`, `e [NOT] IN (SELECT ...)`. */
export interface InExpr {
  readonly kind: 'in';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly expr: Expr;
  readonly not: boolean;
  readonly target:
    | { readonly kind: 'list'; readonly items: readonly Expr[] }
    | { readonly kind: 'unnest'; readonly array: Expr }
    | { readonly kind: 'subquery'; readonly query: Select };
}

export interface BetweenExpr {
  readonly kind: 'between';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly expr: Expr;
  readonly not: boolean;
  readonly low: Expr;
  readonly high: Expr;
}

export interface LikeExpr {
  readonly kind: 'like';
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly expr: Expr;
  readonly not: boolean;
  readonly pattern: Expr;
}

/** `CASE [operand] WHEN w THEN t ... [ELSE e] END`: operand null for the searched form. */
export interface CaseExpr {
  readonly kind: 'case';
  readonly pos: Pos;
  readonly operand: Expr | null;
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[];
  readonly else: Expr | null;
}

/** `CAST(e AS type [FORMAT f])`, `SAFE_CAST(...)`. */
export interface CastExpr {
  readonly kind: 'cast';
  readonly pos: Pos;
  readonly safe: boolean;
  readonly expr: Expr;
  readonly type: TypeExpr;
  readonly format: Expr | null;
}

/**
 * A function call: `f(a, b)`, `COUNT(*)`, `COUNT(DISTINCT x)`, `SAFE.f(x)`, `HLL_COUNT.MERGE(x)`, named arguments
 * `f(a, name => v)`, `ARRAY_AGG(x IGNORE NULLS ORDER BY y DESC LIMIT 3)`, and keyword-named functions
 * (`IF`, `LEFT`, `RIGHT`, `DATE(...)`, `TIMESTAMP(...)`, ...). Names are kept as written; the analyzer
 * matches them case-insensitively.
 */
export interface CallExpr {
  readonly kind: 'call';
  readonly pos: Pos;
  /** Dotted parts: `['SAFE', 'TO_INT64']`, `['HLL_COUNT', 'MERGE']`, or one part. */
  readonly name: readonly Ident[];
  readonly distinct: boolean;
  /** `f(*)` (COUNT(*)): then `args` is empty. */
  readonly star: boolean;
  /** Positional arguments first (in order), then named ones. */
  readonly args: readonly Expr[];
  readonly namedArgs: readonly NamedArg[];
  readonly nulls: 'IGNORE' | 'RESPECT' | null;
  readonly orderBy: readonly OrderItem[];
  readonly limit: Expr | null;
}

/**
 * A date part: `DAY`, `WEEK`, `WEEK(MONDAY)`, `ISOYEAR`, ... (upper-cased; `weekday` only for WEEK(...)).
 * Not checked against the list of parts: the analyzer does.
 */
export interface DatePart {
  readonly pos: Pos;
  readonly name: string;
  readonly weekday: string | null;
}

/** `EXTRACT(part FROM e [AT TIME ZONE tz])`. */
export interface ExtractExpr {
  readonly kind: 'extract';
  readonly pos: Pos;
  readonly part: DatePart;
  readonly expr: Expr;
  readonly timeZone: Expr | null;
}

/** `INTERVAL e part` (as in `DATE_ADD(d, INTERVAL 1 DAY)`), or `INTERVAL 'text' part TO part`. */
export interface IntervalExpr {
  readonly kind: 'interval';
  readonly pos: Pos;
  readonly value: Expr;
  readonly part: DatePart;
  readonly toPart: DatePart | null;
}

/** `e -> body` or `(e, i) -> body`: a function argument (ARRAY_FILTER, ARRAY_TRANSFORM, ...). */
export interface LambdaExpr {
  readonly kind: 'lambda';
  readonly pos: Pos;
  readonly params: readonly Ident[];
  readonly body: Expr;
}

/** `(SELECT ...)` as a value, `ARRAY(SELECT ...)`, `EXISTS(SELECT ...)` (parsed; the analyzer says if Bigtable allows). */
export interface SubqueryExpr {
  readonly kind: 'subquery';
  readonly pos: Pos;
  readonly mode: 'scalar' | 'array' | 'exists';
  readonly query: Select;
}

// ---------------------------------------------------------------------------------------------------------------
// Types (CAST targets, ARRAY<T>[...], STRUCT<...>(...))

export type TypeExpr = NamedType | ArrayType | StructType | MapType;

/** `INT64`, `STRING`, `BYTES`, `FLOAT32`, ... upper-cased; not checked against the list of types (the analyzer does). */
export interface NamedType {
  readonly kind: 'namedType';
  readonly pos: Pos;
  readonly name: string;
}

export interface ArrayType {
  readonly kind: 'arrayType';
  readonly pos: Pos;
  readonly element: TypeExpr;
}

export interface StructType {
  readonly kind: 'structType';
  readonly pos: Pos;
  /** Field names may be omitted (`STRUCT<INT64, STRING>`). */
  readonly fields: readonly { readonly name: Ident | null; readonly type: TypeExpr }[];
}

export interface MapType {
  readonly kind: 'mapType';
  readonly pos: Pos;
  readonly key: TypeExpr;
  readonly value: TypeExpr;
}
