/**
 * V8 options for the server process.
 *
 * The durable engine keeps its data off the JavaScript heap (commit-log
 * buffers, SSTable blocks and the block cache are all Buffers), so the heap
 * itself stays small: about 20 MB live. V8 sizes its old generation from what
 * is live, and starts a full (incremental) mark when the room left is smaller
 * than the young generation, so with a 20 MB heap it marks every ~0.1 s under
 * a read load, although nearly everything a request allocates dies young.
 * Measured with `npx tsx bench/profile.ts prefix-scan` (100-row scans, 1 KiB
 * rows, durable): 650–730 µs of server CPU per scan without the option, 340
 * with it, the difference being V8's marking threads; bulk loads are unchanged
 * or cheaper and RSS is unchanged. A smaller young generation
 * (--max-semi-space-size) also avoids the marking but makes bulk loads 25–35%
 * dearer, so the old generation's starting size is the one to set.
 *
 * 128 MB rather than 64: V8 counts the Buffers allocated since the last full
 * GC against the old generation's room, and a bulk load allocates ~1 KiB of
 * them per 1 KiB row (memtable records, request buffers) that live past a
 * scavenge. With 64 MB, a load of 300,000 1 KiB rows after a 200,000-row
 * warm-up (`npx tsx bench/profile.ts load --rows 300000 --warm-rows 200000`,
 * SERVER_NODE_FLAGS set to each) ran 21–23 full GCs and cost 10.4–11.5 µs
 * of server CPU per row; with 128 MB, 10 (all then started by V8's own
 * 64 MB external-memory step) and 9.2–10.0 µs; 256 MB ran as many as 128.
 * RSS grew by ~15 MB. Prefix scans: 616–647 µs per scan against 663–705.
 *
 * V8 reads this option only when the process starts (it is not accepted in
 * NODE_OPTIONS, and v8.setFlagsFromString is too late), so it is on the
 * `tabletop` executable's first line, in `npm start`, and in everything that
 * spawns the server; `serve` says so when it is missing.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/** The entries of SERVER_NODE_FLAGS that `execArgv` (a process's Node options) lacks. */
export function missingServerFlags(execArgv: readonly string[]): string[] {
  const given = new Set(execArgv.map((a) => optionName(a)));
  return SERVER_NODE_FLAGS.filter((f) => !given.has(optionName(f)));
}

/** "--initial_old_space_size=64" and "--initial-old-space-size" both name initial-old-space-size. */
function optionName(arg: string): string {
  const eq = arg.indexOf('=');
  return (eq < 0 ? arg : arg.slice(0, eq)).replace(/^-+/, '').replaceAll('_', '-');
}
