import type { DiagnosticKind } from './api-types.js';

/**
 * What to change, per diagnostic, in our own words under the schema guide's
 * names (field promotion, salting, reverse timestamps, padding, reversed
 * domain names). Diagnostics that only describe (no data, not to scale,
 * approximate values) have none.
 */
export const ADVICE: Readonly<Partial<Record<DiagnosticKind | 'hot_row', string>>> = {
  high_write_pressure:
    'Spread the writes over the key space: put a field that differs between writers first in the key (field promotion), ' +
    'or prefix keys with a small hash of an identifier (salting, e.g. `hash(id) % 8#...`) and read the prefixes in parallel.',
  high_read_pressure:
    'Spread the reads: cache what many clients read alike, read a narrower key range, or lead the key with a field that ' +
    'spreads readers over the table (field promotion, salting).',
  hot_row:
    'One row takes the load, and no split can spread a single row. Shard what it holds over a few rows ' +
    '(`counter#0` ... `counter#9`, summed on read) or salt its key, and keep rows small.',
  sequential_keys:
    'Keys that grow with time send every write to the end of the table, so one tablet and one node take them all. ' +
    'Put the identifier you query by before the timestamp (field promotion: `device#42#<ts>`), prefix a small hash ' +
    '(salting), or store a reverse timestamp (`MAX - ts`) after the identifier when you read the newest first.',
  sudden_onset:
    'A key range went from quiet to busy at once: a bulk load or a batch job on one range. Pace it, or give its keys a ' +
    'leading field or a salt so that they interleave with the rest of the table.',
  periodic: 'A scheduled job likely works on this range at this period. If its peaks slow other traffic, pace it or spread its keys.',
  scan_inefficiency:
    'Reads scan far more rows than they return, so a filter does the selecting. Put what you filter on into the row key and ' +
    'read a key prefix or range instead (field promotion), and set a garbage-collection policy if old cells inflate the scan.',
  large_rows:
    'Keep rows far below 256 MB: split a growing row by time or by a sub-key (`user#42#2026-11`) and let a ' +
    'garbage-collection policy drop old cells.',
  unpadded_numbers:
    'Zero-pad numbers in keys to one width (`00042`, not `42`) so that byte order is numeric order: unpadded, `9` sorts ' +
    'after `10` and range scans come back out of numeric order.',
  unreversed_domains:
    'Store domain names reversed (`com.example.www`) so that the rows of one domain sit together and the common `www.` ' +
    'prefix does not crowd the key space.',
};
