/**
 * The Key Visualizer's colour ramp: dark for low values, bright for high ones,
 * through black → purple → red → yellow → white. A 256-entry lookup table of
 * RGB triples, interpolated linearly between five evenly spaced stops.
 */
export const RAMP_STOPS: readonly (readonly [number, number, number])[] = [
  [0, 0, 0],
  [90, 20, 140],
  [225, 40, 50],
  [255, 210, 40],
  [255, 255, 255],
];

export const RAMP_SIZE = 256;

/** RGB of entry i at [3i, 3i+3). Brightness (the sum of the channels) never falls along the ramp. */
export function colourRamp(stops = RAMP_STOPS, size = RAMP_SIZE): Uint8Array {
  const lut = new Uint8Array(size * 3);
  const segments = stops.length - 1;
  for (let i = 0; i < size; i++) {
    const pos = (i / (size - 1)) * segments;
    const s = Math.min(Math.floor(pos), segments - 1);
    const f = pos - s;
    const a = stops[s]!;
    const b = stops[s + 1]!;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(a[c]! + (b[c]! - a[c]!) * f);
  }
  return lut;
}
