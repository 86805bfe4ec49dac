/**
 * The heart of a compaction: merges the rows of several SSTables of one
 * store into the entries of its new file, from iterators over the inputs,
 * the store's drops and its GC rules, into a sink (compaction.ts: the new
 * file's writer, which a build worker may back).
 */
import type { ByteString } from '../../model/bytes.js';
import type { Cell } from '../../model/cell.js';
import type { GcRule } from '../../model/gc-rule.js';
import { ByteWriter } from '../../model/byte-writer.js';
import { columnGcOf } from '../row-ops.js';
import type { SSTableIterator } from '../sstable/index.js';
import { compactEntries, decodeFragment, encodeEntries, type Entry, fragmentHasOnlyPuts, type StoreDrops } from './fragment.js';

export interface MergeInput {
  /** Positioned at the store's first key, bounded by the store's range. */
  readonly iter: SSTableIterator;
  /** How errors name the input (TableFile.where). */
  readonly where: string;
}

export interface MergeOptions {
  /** Every file of the store: tombstones, drops and GC rules are applied. */
  readonly major: boolean;
  /** The highest drop sequence of the store when the compaction started (0: none). */
  readonly dropsSeq: number;
  readonly drops: StoreDrops;
  /** Per-row GC (major compactions with rules only). */
  readonly gc: ((cells: readonly Cell[]) => readonly Cell[]) | undefined;
}

/** Receives the merged rows; `pause` is awaited when it is not undefined (slicing, a builder that is behind). */
export interface MergeSink {
  add(key: ByteString, value: Uint8Array): void;
  pause(): Promise<void> | undefined;
  /** True when the work is to stop (the store was deleted, a split wants it): mergeRows throws MergeStopped. */
  stopped(): boolean;
}

export class MergeStopped extends Error {}

export async function mergeRows(inputs: readonly MergeInput[], options: MergeOptions, sink: MergeSink): Promise<void> {
  const { major, dropsSeq, drops, gc } = options;
  const w = new ByteWriter(1024);
  const entries: Entry[] = [];
  for (;;) {
    if (sink.stopped()) throw new MergeStopped();
    let key: ByteString | undefined;
    for (const { iter } of inputs) if (iter.valid && (key === undefined || iter.key < key)) key = iter.key;
    if (key === undefined) break;
    let only = -1;
    let count = 0;
    for (let i = 0; i < inputs.length; i++) {
      const it = inputs[i]!.iter;
      if (it.valid && it.key === key) {
        only = i;
        count++;
      }
    }
    // A row held by one input passes through as it is, unless a major compaction has
    // tombstones, drops or GC rules to apply to it.
    if (count === 1 && dropsSeq === 0) {
      const { iter, where } = inputs[only]!;
      const value = iter.value;
      if (!major || (gc === undefined && fragmentHasOnlyPuts(value, where))) {
        sink.add(key, value);
        iter.next();
        const pause = sink.pause();
        if (pause !== undefined) await pause;
        continue;
      }
    }
    entries.length = 0;
    for (const { iter, where } of inputs) {
      if (!iter.valid || iter.key !== key) continue;
      decodeFragment(iter.value, where, entries);
      iter.next();
    }
    const merged = compactEntries(key, entries, drops, major, gc);
    if (merged.length > 0) {
      w.pos = 0;
      encodeEntries(w, merged);
      sink.add(key, w.view());
    }
    const pause = sink.pause();
    if (pause !== undefined) await pause;
  }
}

/** A store's GC rules as a per-row function for compactEntries: each column of the row through its family's rule. */
export function rowGcOf(rules: ReadonlyMap<string, GcRule | undefined>, nowMicros: number): (cells: readonly Cell[]) => readonly Cell[] {
  const gc = columnGcOf(rules);
  return (cells) => {
    const out: Cell[] = [];
    let i = 0;
    while (i < cells.length) {
      const first = cells[i]!;
      let j = i + 1;
      while (j < cells.length && cells[j]!.family === first.family && cells[j]!.qualifier === first.qualifier) j++;
      const column = cells.slice(i, j);
      for (const c of gc(first.family, column, nowMicros)) out.push(c);
      i = j;
    }
    return out;
  };
}
