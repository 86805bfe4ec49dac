import { describe, expect, it } from 'vitest';
import { WriteGate } from './write-gate.js';

describe('WriteGate', () => {
  it('lets writers in without waiting when nothing exclusive is around', () => {
    const gate = new WriteGate();
    expect(gate.enterShared()).toBeUndefined();
    expect(gate.enterShared()).toBeUndefined();
    gate.exitShared();
    gate.exitShared();
  });

  it('runs an exclusive operation only after the writers inside have left, and holds new writers back', async () => {
    const gate = new WriteGate();
    const events: string[] = [];
    gate.enterShared();
    const exclusive = gate.exclusive(() => {
      events.push('exclusive');
    });
    const late = gate.enterShared();
    expect(late).toBeInstanceOf(Promise);
    const lateDone = late!.then(() => events.push('late writer'));
    await Promise.resolve();
    events.push('writer leaves');
    gate.exitShared();
    await exclusive;
    await lateDone;
    gate.exitShared();
    expect(events).toEqual(['writer leaves', 'exclusive', 'late writer']);
  });

  it('runs exclusive operations one at a time and releases the gate when one fails', async () => {
    const gate = new WriteGate();
    let inside = 0;
    let maxInside = 0;
    const op = async (): Promise<void> => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await new Promise((r) => setTimeout(r, 5));
      inside--;
    };
    const failing = gate.exclusive(async () => {
      throw new Error('boom');
    });
    await Promise.all([gate.exclusive(op), gate.exclusive(op), expect(failing).rejects.toThrow('boom')]);
    expect(maxInside).toBe(1);
    expect(gate.enterShared()).toBeUndefined();
    gate.exitShared();
  });
});
