import { describe, expect, it } from 'vitest';
import { colourRamp, RAMP_SIZE, RAMP_STOPS } from './colour-ramp.js';

describe('colourRamp', () => {
  const lut = colourRamp();
  const rgb = (i: number) => [lut[i * 3], lut[i * 3 + 1], lut[i * 3 + 2]];

  it('has 256 entries from black to white through the five stops', () => {
    expect(lut.length).toBe(RAMP_SIZE * 3);
    expect(rgb(0)).toEqual([0, 0, 0]);
    expect(rgb(255)).toEqual([255, 255, 255]);
    // Stops at 0, 63.75, 127.5, 191.25, 255: the entries nearest the inner stops are within a step of them.
    for (const [s, i] of [
      [1, 64],
      [2, 128],
      [3, 191],
    ] as const) {
      rgb(i).forEach((v, c) => expect(Math.abs(v! - RAMP_STOPS[s]![c]!)).toBeLessThanOrEqual(4));
    }
  });

  it('never gets darker along the ramp (brightness = sum of channels)', () => {
    for (let i = 1; i < RAMP_SIZE; i++) {
      const [a, b] = [rgb(i - 1), rgb(i)].map((x) => x[0]! + x[1]! + x[2]!);
      expect(b, `entry ${i}`).toBeGreaterThanOrEqual(a!);
    }
  });
});
