import { describe, expect, it } from 'vitest';
import { ExpectedState, ExpectedTables, type ObservedRow, type RowOp, cellValue, parseCellValue } from './expected-state.js';

// The crash test is only as good as its checker: these show that it rejects
// each kind of damage it is meant to catch, and accepts what a crash may do.

const put = (tag: string, ...columns: string[]): RowOp => ({ tag, via: 'test', steps: columns.map((column) => ({ kind: 'set', column })) });

function read(cells: Record<string, string | string[]>): ObservedRow {
  const row = new Map<string, { value: Buffer; timestampMicros: string }[]>();
  for (const [column, tags] of Object.entries(cells)) {
    row.set(
      column,
      (Array.isArray(tags) ? tags : [tags]).map((tag) => ({ value: cellValue(tag, column), timestampMicros: '0' })),
    );
  }
  return row;
}

describe('ExpectedState', () => {
  it('accepts the acknowledged state and rejects a lost acknowledged write', () => {
    const s = new ExpectedState(['r'], []);
    s.send('r', put('t1', 'cf:a', 'cf:b'));
    s.ack('r');
    expect(s.verifyRow('r', read({ 'cf:a': 't1', 'cf:b': 't1' }))).toEqual([]);

    s.send('r', put('t2', 'cf:a'));
    s.ack('r');
    const problems = s.verifyRow('r', read({ 'cf:a': 't1', 'cf:b': 't1' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('r: read {cf:a=t1 cf:b=t1}, expected the acknowledged state: {cf:a=t2 cf:b=t1}');
  });

  it('accepts a pending write either whole or absent, never half-applied', () => {
    for (const [observed, ok] of [
      [{ 'cf:a': 't1', 'cg:c': 't1' }, true],
      [{}, true],
      [{ 'cf:a': 't1' }, false],
    ] as const) {
      const s = new ExpectedState(['r'], []);
      s.send('r', put('t1', 'cf:a', 'cg:c'));
      expect(s.verifyRow('r', read(observed)).length === 0).toBe(ok);
    }
  });

  it('adopts what it saw, so a pending write seen once must stay', () => {
    const s = new ExpectedState(['r'], []);
    s.send('r', put('t1', 'cf:a'));
    expect(s.verifyRow('r', read({ 'cf:a': 't1' }))).toEqual([]);
    expect(s.verifyRow('r', read({}))).toHaveLength(1);
  });

  it('applies deletes in order: a replace is a delete of the row then sets', () => {
    const s = new ExpectedState(['r'], []);
    s.send('r', put('t1', 'cf:a', 'cf:b', 'cg:c'));
    s.ack('r');
    s.send('r', { tag: 't2', via: 'test', steps: [{ kind: 'deleteRow' }, { kind: 'set', column: 'cf:b' }] });
    s.ack('r');
    s.send('r', {
      tag: 't3',
      via: 'test',
      steps: [
        { kind: 'deleteFamily', family: 'cf' },
        { kind: 'set', column: 'cg:d' },
      ],
    });
    expect(s.verifyRow('r', read({ 'cf:b': 't2' }))).toEqual([]);
    s.send('r', {
      tag: 't4',
      via: 'test',
      steps: [
        { kind: 'deleteFamily', family: 'cf' },
        { kind: 'set', column: 'cg:d' },
      ],
    });
    s.ack('r');
    expect(s.verifyRow('r', read({ 'cg:d': 't4' }))).toEqual([]);
    s.send('r', { tag: 't5', via: 'test', steps: [{ kind: 'deleteColumn', column: 'cg:d' }] });
    s.ack('r');
    expect(s.verifyRow('r', read({ 'cg:d': 't4' }))).toHaveLength(1);
  });

  it('rejects a damaged value, a value under the wrong column and extra versions', () => {
    const s = new ExpectedState(['r'], []);
    s.send('r', put('t1', 'cf:a'));
    s.ack('r');
    const damaged = Buffer.from(cellValue('t1', 'cf:a'));
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 1) ^ 1, damaged.length - 1);
    expect(s.verifyRow('r', new Map([['cf:a', [{ value: damaged, timestampMicros: '0' }]]]))[0]).toContain(
      'differs from what that write stored',
    );
    expect(parseCellValue('cf:b', cellValue('t1', 'cf:a'))).toHaveProperty('error');
    expect(s.verifyRow('r', read({ 'cf:a': ['t1', 't0'] }))[0]).toContain('2 cells returned');
  });

  it('bounds counters by acknowledged and pending increments', () => {
    const after = (sent: number, acked: number, value: number | undefined): number => {
      const s = new ExpectedState([], ['c']);
      for (let i = 0; i < sent; i++) s.sendIncrement('c');
      for (let i = 0; i < acked; i++) s.ackIncrement('c');
      return s.verifyCounter('c', value).length;
    };
    expect(after(5, 3, 2)).toBe(1);
    expect(after(5, 3, 3)).toBe(0);
    expect(after(5, 3, 5)).toBe(0);
    expect(after(5, 3, 6)).toBe(1);
    expect(after(0, 0, undefined)).toBe(0);
    expect(after(1, 1, undefined)).toBe(1);

    // Verification adopts the value: unacknowledged increments that were lost stay lost.
    const s = new ExpectedState([], ['c']);
    s.sendIncrement('c');
    s.sendIncrement('c');
    expect(s.verifyCounter('c', 1)).toEqual([]);
    s.sendIncrement('c');
    s.ackIncrement('c');
    expect(s.verifyCounter('c', 3)).toHaveLength(1);
  });

  it('checks reads that overlap writes against every state the row passed through meanwhile', () => {
    const s = new ExpectedState(['r'], ['c']);
    s.send('r', put('t1', 'cf:a'));
    s.ack('r');
    const mark = s.readMark();
    s.send('r', put('t2', 'cf:a', 'cf:b'));
    s.ack('r');
    s.send('r', put('t3', 'cg:c'));
    const oks: Record<string, string>[] = [{ 'cf:a': 't1' }, { 'cf:a': 't2', 'cf:b': 't2' }, { 'cf:a': 't2', 'cf:b': 't2', 'cg:c': 't3' }];
    for (const ok of oks) {
      expect(s.checkConcurrentRow(mark, 'r', read(ok))).toEqual([]);
    }
    // Half of t2, a state from before the read, and t3 without t2 are all wrong.
    const bads: Record<string, string>[] = [{ 'cf:a': 't2' }, {}, { 'cf:a': 't1', 'cg:c': 't3' }];
    for (const bad of bads) {
      expect(s.checkConcurrentRow(mark, 'r', read(bad))).toHaveLength(1);
    }
    // A read that starts after an acknowledgement must see it.
    const later = s.readMark();
    expect(s.checkConcurrentRow(later, 'r', read({ 'cf:a': 't1' }))).toHaveLength(1);

    s.sendIncrement('c');
    s.ackIncrement('c');
    const counterMark = s.readMark();
    s.sendIncrement('c');
    expect(s.checkConcurrentCounter(counterMark, 'c', 0)).toHaveLength(1);
    expect(s.checkConcurrentCounter(counterMark, 'c', 1)).toEqual([]);
    expect(s.checkConcurrentCounter(counterMark, 'c', 2)).toEqual([]);
    expect(s.checkConcurrentCounter(counterMark, 'c', 3)).toHaveLength(1);
  });
});

describe('ExpectedTables', () => {
  it('requires acknowledged creations and deletions, and allows either for pending ones', () => {
    const t = new ExpectedTables();
    const a = t.sendCreate();
    t.ack(a);
    t.sendCreate(); // pending: may or may not exist
    expect(t.verify(new Set([a]))).toEqual([]);
    expect(t.verify(new Set())[0]).toContain(`table ${a} is missing`);
    const c = t.sendCreate();
    t.ack(c);
    expect(t.sendDelete((ids) => ids[0]!)).toBe(c);
    t.ack(c);
    expect(t.verify(new Set([c]))[0]).toContain(`table ${c} exists, but its deletion was acknowledged`);
    expect(t.verify(new Set(['stranger']))).toContain('table stranger exists but was never created');
  });
});
