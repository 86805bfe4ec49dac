import { invalidArgument, type TabletopError } from '../../model/errors.js';
import type { Pos } from './ast.js';

/**
 * A query's text with its line starts, to turn an offset into a position (`line`, `column` from 1; lines end at
 * `\n`, `\r\n` or `\r`; columns count code points) and to make the errors that name it.
 */
export class SourceText {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) this.lineStarts.push(i + 1);
    }
  }

  /** The last position computed: a later offset on the same line counts on from it (the lexer goes forward). */
  private last: Pos = { offset: 0, line: 1, column: 1 };

  pos(offset: number): Pos {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const lineStart = this.lineStarts[lo]!;
    let from = lineStart;
    let column = 1;
    if (this.last.line === lo + 1 && this.last.offset <= offset) {
      from = this.last.offset;
      column = this.last.column;
    }
    for (let i = from; i < offset; i++) {
      // The second half of a surrogate pair does not start a column.
      if (!(isLowSurrogate(this.text.charCodeAt(i)) && i > lineStart && isHighSurrogate(this.text.charCodeAt(i - 1)))) column++;
    }
    this.last = { offset, line: lo + 1, column };
    return this.last;
  }

  /** An InvalidArgument naming the position: `line L, column C: message`. */
  error(offset: number, message: string): TabletopError {
    return errorAt(this.pos(offset), message);
  }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The one form of the SQL engine's positioned errors: `line L, column C: message` (InvalidArgument). */
export function errorAt(pos: { readonly line: number; readonly column: number }, message: string): TabletopError {
  return invalidArgument(`line ${pos.line}, column ${pos.column}: ${message}`);
}
