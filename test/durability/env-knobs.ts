/** A positive integer from the environment variable `name`, or `fallback` when it is unset or empty. */
export function positiveInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not "${v}"`);
  return n;
}
