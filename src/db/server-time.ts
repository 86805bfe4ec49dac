import type { Clock } from '../model/clock.js';

/** Server time for a request: the clock truncated to the table's granularity (milliseconds), in microseconds. */
export function serverTimeMicros(clock: Clock): number {
  const now = clock.nowMicros();
  return now - (now % 1000);
}
