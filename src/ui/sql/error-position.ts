/**
 * Where a query's error is: the SQL engine's messages start `line L, column C: ` (src/sql/syntax/source-text.ts:
 * lines from 1, ending at \n, \r\n or \r; columns from 1, counting code points). The query box marks that place
 * in the query and puts the editor's cursor there.
 */

export interface ErrorPosition {
  readonly line: number;
  readonly column: number;
  /** The message after the position. */
  readonly message: string;
}

export function parseErrorPosition(message: string): ErrorPosition | undefined {
  const m = /^line (\d+), column (\d+): ([\s\S]*)$/.exec(message);
  return m === null ? undefined : { line: Number(m[1]), column: Number(m[2]), message: m[3]! };
}

/** The query's lines without their line ends, as the engine counts them. */
export function queryLines(query: string): string[] {
  return query.split(/\r\n|\r|\n/);
}

/** The string offset (UTF-16) of a position; a position past a line's end is that end; past the last line, the query's end. */
export function offsetOf(query: string, line: number, column: number): number {
  let offset = 0;
  const lines = queryLines(query);
  if (line > lines.length) return query.length;
  for (let l = 1; l < line; l++) {
    offset += lines[l - 1]!.length;
    offset += query.startsWith('\r\n', offset) ? 2 : 1;
  }
  return offset + codeUnitsOf(lines[line - 1]!, column - 1);
}

/** The UTF-16 length of a string's first `codePoints` code points (at most the whole string). */
function codeUnitsOf(s: string, codePoints: number): number {
  let units = 0;
  let n = 0;
  for (const ch of s) {
    if (n === codePoints) break;
    units += ch.length;
    n++;
  }
  return units;
}

/** The error's line split around the token at its position: a word, a number, a string up to its quote, or one character. */
export interface ErrorExcerpt {
  readonly before: string;
  readonly token: string;
  readonly after: string;
}

export function errorExcerpt(query: string, line: number, column: number): ErrorExcerpt | undefined {
  const text = queryLines(query)[line - 1];
  if (text === undefined) return undefined;
  const at = codeUnitsOf(text, column - 1);
  const rest = text.slice(at);
  const token = /^(@?[\p{L}\p{N}_]+|`[^`]*`?|'[^']*'?|"[^"]*"?|\S)/u.exec(rest)?.[0] ?? '';
  return { before: text.slice(0, at), token, after: rest.slice(token.length) };
}
