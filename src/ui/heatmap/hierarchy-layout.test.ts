import { describe, expect, it } from 'vitest';
import { laneCount, layoutHierarchy } from './hierarchy-layout.js';

describe('layoutHierarchy', () => {
  const spans = [
    { depth: 1, text: 'user', from: 0, to: 99 },
    { depth: 2, text: 'user#1', from: 0, to: 74 },
    { depth: 2, text: 'user#2', from: 75, to: 99 },
    { depth: 3, text: 'user#2#x', from: 99, to: 99 },
    { depth: 4, text: 'user#1#a#b', from: 0, to: 10 },
  ];

  it('places each prefix against its buckets, top = lowest key, by depth', () => {
    const out = layoutHierarchy(spans, 100, 400, { maxDepth: 3, minLabelPx: 14, minBracketPx: 3 });
    expect(out.map((b) => [b.depth, b.text, b.top, b.bottom, b.labelled])).toEqual([
      [1, 'user', 0, 400, true],
      [2, 'user#1', 0, 300, true],
      [2, 'user#2', 300, 400, true],
      [3, 'user#2#x', 396, 400, false],
    ]);
    expect(laneCount(out)).toBe(3);
  });

  it('leaves out brackets too short to see and clamps spans to the buckets in view', () => {
    const out = layoutHierarchy(spans, 100, 100, { maxDepth: 3, minLabelPx: 14, minBracketPx: 3 });
    expect(out.map((b) => b.text)).toEqual(['user', 'user#1', 'user#2']);
    expect(layoutHierarchy([{ depth: 1, text: 'a', from: -5, to: 500 }], 10, 100)[0]).toMatchObject({
      top: 0,
      bottom: 100,
      from: 0,
      to: 9,
    });
    expect(layoutHierarchy(spans, 0, 100)).toEqual([]);
  });
});
