import { describe, expect, it } from 'vitest';
import { WriteOrderSample } from './write-order.js';

describe('WriteOrderSample', () => {
  it('keeps at most one key per interval, in arrival order', () => {
    const s = new WriteOrderSample(50, 10);
    s.offer('a', 1000);
    s.offer('b', 1020); // too soon
    s.offer('c', 1049); // too soon
    s.offer('d', 1050);
    s.offer('e', 1200);
    expect(s.keys()).toEqual(['a', 'd', 'e']);
  });

  it('keeps the newest `capacity` keys once full, oldest first', () => {
    const s = new WriteOrderSample(1, 4);
    for (let i = 0; i < 11; i++) s.offer(`k${i}`, i * 10);
    expect(s.keys()).toEqual(['k7', 'k8', 'k9', 'k10']);
    s.offer('k11', 1000);
    expect(s.keys()).toEqual(['k8', 'k9', 'k10', 'k11']);
  });

  it('is empty before any write', () => {
    expect(new WriteOrderSample(50).keys()).toEqual([]);
  });
});
