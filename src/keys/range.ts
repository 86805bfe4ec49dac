/**
 * A key range as the key schema gives it, and its forms for the clients.
 *
 * `start` is inclusive ('' is the table's first row) and `end` exclusive (undefined: to the table's
 * last row), both key texts (their UTF-8 bytes are the row keys), like tabletop's own KeyRange (whose keys are byte strings).
 */
export interface RowKeyRange {
  readonly start: string;
  readonly end: string | undefined;
}

/** A bound as the official client (@google-cloud/bigtable) takes it in `ranges` (its BoundData). */
export interface ClientBound {
  readonly value: string;
  readonly inclusive: boolean;
}

/**
 * The range as an entry of the official client's `ranges` option:
 * `table.createReadStream({ ranges: schema.ranges(...).map(toClientRange) })`. The client's own
 * `start`/`end` options are both inclusive, so `end` must go as `{ value, inclusive: false }`; an
 * empty `start` or an open end are left out (the client reads '' as "no bound").
 */
export function toClientRange(range: RowKeyRange): { start?: ClientBound; end?: ClientBound } {
  return {
    ...(range.start === '' ? {} : { start: { value: range.start, inclusive: true } }),
    ...(range.end === undefined ? {} : { end: { value: range.end, inclusive: false } }),
  };
}

/** The range as a Bigtable v2 RowRange (`startKeyClosed`, `endKeyOpen`: the key bytes), for raw ReadRows requests. */
export function toRowRange(range: RowKeyRange): { startKeyClosed?: Buffer; endKeyOpen?: Buffer } {
  return {
    ...(range.start === '' ? {} : { startKeyClosed: Buffer.from(range.start, 'utf8') }),
    ...(range.end === undefined ? {} : { endKeyOpen: Buffer.from(range.end, 'utf8') }),
  };
}
