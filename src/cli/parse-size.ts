/**
 * Parses a size given on the command line, in the environment or in a
 * config file: a number of bytes, optionally with a binary suffix (KiB, MiB,
 * GiB, TiB; also K/M/G/T and KB/MB/GB/TB, all read as powers of 1024).
 * Examples: "4096", "64MiB", "1.5GiB". Errors do not name the source.
 */
const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim());
  const unit = m === null ? undefined : UNITS[m[2]!.toUpperCase()];
  if (m === null || unit === undefined) throw new Error(`must be a size such as 4096, 512KiB, 64MiB or 1GiB (got "${text}")`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw new Error(`is too large (got "${text}")`);
  return bytes;
}
