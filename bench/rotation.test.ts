import { describe, expect, it } from 'vitest';
import { rotated } from './runner.js';

describe('the order of targets in a run', () => {
  it('rotates from run to run, so that each target runs first in turn', () => {
    const targets = ['tabletop', 'tabletop-off', 'tabletop-again'];
    expect([1, 2, 3, 4].map((run) => rotated(targets, run))).toEqual([
      ['tabletop', 'tabletop-off', 'tabletop-again'],
      ['tabletop-off', 'tabletop-again', 'tabletop'],
      ['tabletop-again', 'tabletop', 'tabletop-off'],
      ['tabletop', 'tabletop-off', 'tabletop-again'],
    ]);
    expect(rotated([], 3)).toEqual([]);
  });
});
