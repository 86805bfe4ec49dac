import { describe, expect, it } from 'vitest';
import type { ReadStats, RowPuller } from '../../db/api.js';
import type { Row } from '../../model/cell.js';
import type { MaybePromise } from '../../storage/store.js';
import type { ReadRowsFrame } from '../convert/read-rows-encoder.js';
import type { StreamWriter } from '../rpc.js';
import { type ReadRowsStreamOptions, streamReadRows } from './read-rows-stream.js';

/**
 * A scripted RowPuller: each step is a row the scan returns, a row it examines
 * and filters out, or a point where it would block (next() returns a promise).
 */
type Step = { readonly row: string } | { readonly skip: string } | 'block' | { readonly slowSkip: readonly string[] };

class ScriptedReader implements RowPuller {
  readonly stats: ReadStats = { rowsSeen: 0, cellsSeen: 0, rowsReturned: 0, cellsReturned: 0 };
  lastScannedKey: string | undefined;
  pulls = 0;
  closed = false;
  private i = 0;
  constructor(
    private readonly steps: readonly Step[],
    private readonly valueBytes = 10,
  ) {}

  next(): MaybePromise<Row | undefined> {
    this.pulls++;
    for (;;) {
      const s = this.steps[this.i++];
      if (s === undefined) return undefined;
      if (s === 'block') return new Promise((resolve) => setTimeout(() => resolve(this.continue()), 1));
      if ('slowSkip' in s) {
        // Examines rows one per 2 ms without returning, as a scan over slow storage would.
        return new Promise((resolve) => {
          let k = 0;
          const tick = (): void => {
            const key = s.slowSkip[k++];
            if (key === undefined) return resolve(this.continue());
            this.stats.rowsSeen++;
            this.lastScannedKey = key;
            setTimeout(tick, 2);
          };
          tick();
        });
      }
      this.stats.rowsSeen++;
      this.lastScannedKey = 'row' in s ? s.row : s.skip;
      if ('row' in s) {
        this.stats.rowsReturned++;
        return { key: s.row, cells: [{ family: 'f', qualifier: 'q', timestamp: 1000, value: Buffer.alloc(this.valueBytes), labels: [] }] };
      }
    }
  }

  private continue(): MaybePromise<Row | undefined> {
    this.pulls--;
    return this.next();
  }

  close(): void {
    this.closed = true;
  }
}

function collector(): StreamWriter<ReadRowsFrame> & { frames: ReadRowsFrame[] } {
  const frames: ReadRowsFrame[] = [];
  return { frames, write: (f) => (frames.push(f), true) };
}

const opts = (o: Partial<ReadRowsStreamOptions> = {}): ReadRowsStreamOptions => ({
  targetFrameBytes: 1 << 20,
  heartbeatRows: 3,
  heartbeatMillis: 1000,
  valueChunkBytes: 1 << 20,
  reversed: false,
  yieldEveryMillis: 1000,
  ...o,
});

const keys = (frames: readonly ReadRowsFrame[]) =>
  frames.map((f) => (f.lastScannedRowKey !== undefined ? `hb:${f.lastScannedRowKey}` : f.rows.map((r) => r.key).join(',')));

describe('streamReadRows', () => {
  it('packs whole rows into frames of about the target size', async () => {
    const reader = new ScriptedReader(
      ['a', 'b', 'c', 'd', 'e'].map((row) => ({ row })),
      100,
    );
    const out = collector();
    // Each row encodes to a bit over 100 bytes: two rows reach 200.
    const result = await streamReadRows(reader, out, opts({ targetFrameBytes: 200 }), () => false);
    expect(result).toEqual({ completed: true, framesSent: 3 });
    expect(keys(out.frames)).toEqual(['a,b', 'c,d', 'e']);
  });

  it('sends what it has as soon as the reader would block', async () => {
    const reader = new ScriptedReader([{ row: 'a' }, { row: 'b' }, 'block', { row: 'c' }]);
    const out = collector();
    await streamReadRows(reader, out, opts(), () => false);
    expect(keys(out.frames)).toEqual(['a,b', 'c']);
  });

  it('sends last_scanned_row_key after a long filtered stretch, in a frame of its own', async () => {
    const reader = new ScriptedReader([
      { row: 'a' },
      { skip: 'b' },
      { skip: 'c' },
      { skip: 'd' },
      'block',
      { skip: 'e' },
      'block',
      { row: 'f' },
      { skip: 'g' },
      'block',
    ]);
    const out = collector();
    await streamReadRows(reader, out, opts({ heartbeatRows: 3 }), () => false);
    // After "a", rows b..d were examined (3) when the reader blocked: heartbeat "d". "e" alone is below the threshold.
    expect(keys(out.frames)).toEqual(['a', 'hb:d', 'f']);
  });

  it('sends heartbeats from a timer while a slow scan examines rows', async () => {
    const skipped = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const reader = new ScriptedReader([{ row: 'a' }, { slowSkip: skipped }, { row: 'z' }]);
    const out = collector();
    await streamReadRows(reader, out, opts({ heartbeatRows: 5, heartbeatMillis: 10 }), () => false);
    const sent = keys(out.frames);
    expect(sent[0]).toBe('a');
    expect(sent[sent.length - 1]).toBe('z');
    const beats = sent.slice(1, -1);
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats.every((k) => k.startsWith('hb:k'))).toBe(true);
    expect([...beats].sort()).toEqual(beats);
    expect(new Set(beats).size).toBe(beats.length);
  });

  it('never sends a heartbeat that does not advance past what was sent (reversed too)', async () => {
    const reader = new ScriptedReader([{ row: 'z' }, { skip: 'y' }, 'block', { row: 'x' }]);
    const out = collector();
    await streamReadRows(reader, out, opts({ heartbeatRows: 1, reversed: true }), () => false);
    expect(keys(out.frames)).toEqual(['z', 'hb:y', 'x']);
    const forward = new ScriptedReader([{ row: 'a' }, 'block', { row: 'b' }]);
    const out2 = collector();
    await streamReadRows(forward, out2, opts({ heartbeatRows: 0 }), () => false);
    expect(keys(out2.frames)).toEqual(['a', 'b']);
  });

  it('does not pull the reader while the client is not keeping up', async () => {
    const reader = new ScriptedReader(
      ['a', 'b', 'c'].map((row) => ({ row })),
      10,
    );
    const frames: string[] = [];
    let release: (ok: boolean) => void = () => {};
    const out: StreamWriter<ReadRowsFrame> = {
      write: (f) => {
        frames.push(f.rows.map((r) => r.key).join(','));
        return new Promise<boolean>((r) => (release = r));
      },
    };
    const done = streamReadRows(reader, out, opts({ targetFrameBytes: 1 }), () => false);
    await new Promise((r) => setTimeout(r, 5));
    expect(frames).toEqual(['a']);
    expect(reader.pulls).toBe(1);
    release(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(frames).toEqual(['a', 'b']);
    expect(reader.pulls).toBe(2);
    release(true);
    await new Promise((r) => setTimeout(r, 5));
    release(true);
    expect(await done).toEqual({ completed: true, framesSent: 3 });
  });

  it('stops when the call is cancelled or the client goes away', async () => {
    const reader = new ScriptedReader(
      ['a', 'b', 'c', 'd'].map((row) => ({ row })),
      10,
    );
    let cancelled = false;
    const out: StreamWriter<ReadRowsFrame> = {
      write: () => {
        cancelled = true;
        return true;
      },
    };
    const result = await streamReadRows(reader, out, opts({ targetFrameBytes: 1 }), () => cancelled);
    expect(result.completed).toBe(false);
    expect(reader.pulls).toBe(1);
    const gone = await streamReadRows(
      new ScriptedReader([{ row: 'a' }, { row: 'b' }]),
      { write: () => false },
      opts({ targetFrameBytes: 1 }),
      () => false,
    );
    expect(gone).toEqual({ completed: false, framesSent: 1 });
  });
});
