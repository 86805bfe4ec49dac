/**
 * The `grpc-timeout` request header (PROTOCOL-HTTP2.md, "Timeout"):
 *
 *   Timeout := TimeoutValue TimeoutUnit
 *   TimeoutValue := 1 to 8 ASCII digits
 *   TimeoutUnit  := "H" (hours) | "M" (minutes) | "S" (seconds) | "m" (milliseconds)
 *                 | "u" (microseconds) | "n" (nanoseconds)
 *
 * e.g. "1S" is one second, "250m" a quarter of a second, "99999999H" about 11,400 years.
 */

const UNIT_MILLIS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/** The timeout in milliseconds (fractions kept), or undefined when the value is malformed. */
export function parseGrpcTimeout(value: string): number | undefined {
  const n = value.length;
  if (n < 2 || n > 9) return undefined;
  const unit = UNIT_MILLIS[value[n - 1]!];
  if (unit === undefined) return undefined;
  let digits = 0;
  for (let i = 0; i < n - 1; i++) {
    const c = value.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    digits = digits * 10 + c;
  }
  return digits * unit;
}
