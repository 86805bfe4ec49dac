import type { ByteString } from '../../model/bytes.js';

/**
 * What the manifest records: the durable shape of the database apart from
 * the commit log. Plain JSON-serialisable values.
 */
export interface FileMeta {
  readonly number: number;
  readonly size: number;
  readonly entries: number;
  readonly smallest: ByteString;
  readonly largest: ByteString;
  readonly minSeq: number;
  readonly maxSeq: number;
}

export interface RangeDrop {
  readonly start: ByteString;
  /** Exclusive end; null = unbounded. */
  readonly end: ByteString | null;
  readonly seq: number;
}

export interface StoreState {
  /**
   * The keys the store owns, [lower, upper) (upper null = unbounded). Files
   * shared with other stores after a split hold keys outside them, which the
   * store ignores and its compactions drop.
   */
  lower: ByteString;
  upper: ByteString | null;
  /** Live SSTables, newest (highest maxSeq) first. */
  files: FileMeta[];
  /** Every entry with seq ≤ flushedSeq is in `files`; replay skips them. */
  flushedSeq: number;
  familyDrops: Record<string, number>;
  rangeDrops: RangeDrop[];
}

export interface ManifestState {
  nextFileNumber: number;
  /** Highest sequence number ever assigned and made durable by an edit. */
  lastSeq: number;
  /** Commit-log files numbered below this hold nothing that is not in SSTables. */
  logNumber: number;
  stores: Map<string, StoreState>;
  /** Small named blobs (the catalog), changed atomically with everything else. */
  meta: Map<string, string>;
}

/** One change; a batch of them is applied atomically. */
export type ManifestEdit =
  | { readonly op: 'addStore'; readonly id: string; readonly lower?: ByteString; readonly upper?: ByteString | null }
  | { readonly op: 'deleteStore'; readonly id: string }
  | { readonly op: 'addFiles'; readonly id: string; readonly files: readonly FileMeta[] }
  | { readonly op: 'removeFiles'; readonly id: string; readonly numbers: readonly number[] }
  | { readonly op: 'flushed'; readonly id: string; readonly seq: number }
  | { readonly op: 'familyDrop'; readonly id: string; readonly family: string; readonly seq: number }
  | { readonly op: 'rangeDrop'; readonly id: string; readonly drop: RangeDrop }
  | { readonly op: 'clearRangeDrops'; readonly id: string; readonly upToSeq: number }
  | { readonly op: 'setMeta'; readonly key: string; readonly value: string | null }
  | { readonly op: 'logNumber'; readonly number: number }
  | { readonly op: 'nextFileNumber'; readonly number: number }
  | { readonly op: 'lastSeq'; readonly seq: number };

export function emptyManifestState(): ManifestState {
  return { nextFileNumber: 1, lastSeq: 0, logNumber: 0, stores: new Map(), meta: new Map() };
}

function store(state: ManifestState, id: string): StoreState {
  let s = state.stores.get(id);
  if (s === undefined) {
    s = { lower: '', upper: null, files: [], flushedSeq: 0, familyDrops: {}, rangeDrops: [] };
    state.stores.set(id, s);
  }
  return s;
}

/** Applies one edit in place. */
export function applyEdit(state: ManifestState, e: ManifestEdit): void {
  switch (e.op) {
    case 'addStore': {
      const s = store(state, e.id);
      s.lower = e.lower ?? '';
      s.upper = e.upper ?? null;
      return;
    }
    case 'deleteStore':
      state.stores.delete(e.id);
      return;
    case 'addFiles': {
      const s = store(state, e.id);
      s.files = [...s.files, ...e.files].sort((a, b) => b.maxSeq - a.maxSeq || b.number - a.number);
      return;
    }
    case 'removeFiles': {
      const s = store(state, e.id);
      const gone = new Set(e.numbers);
      s.files = s.files.filter((f) => !gone.has(f.number));
      return;
    }
    case 'flushed': {
      const s = store(state, e.id);
      s.flushedSeq = Math.max(s.flushedSeq, e.seq);
      return;
    }
    case 'familyDrop': {
      const s = store(state, e.id);
      s.familyDrops = { ...s.familyDrops, [e.family]: Math.max(s.familyDrops[e.family] ?? 0, e.seq) };
      return;
    }
    case 'rangeDrop': {
      // Replaced, never changed in place: readers hold on to the arrays they were given.
      const s = store(state, e.id);
      s.rangeDrops = [...s.rangeDrops, e.drop];
      return;
    }
    case 'clearRangeDrops': {
      const s = store(state, e.id);
      s.rangeDrops = s.rangeDrops.filter((d) => d.seq > e.upToSeq);
      return;
    }
    case 'setMeta':
      if (e.value === null) state.meta.delete(e.key);
      else state.meta.set(e.key, e.value);
      return;
    case 'logNumber':
      state.logNumber = Math.max(state.logNumber, e.number);
      return;
    case 'nextFileNumber':
      state.nextFileNumber = Math.max(state.nextFileNumber, e.number);
      return;
    case 'lastSeq':
      state.lastSeq = Math.max(state.lastSeq, e.seq);
      return;
  }
}

/** The edits that rebuild `state` from empty (the first record of a new manifest file). */
export function snapshotEdits(state: ManifestState): ManifestEdit[] {
  const edits: ManifestEdit[] = [
    { op: 'nextFileNumber', number: state.nextFileNumber },
    { op: 'lastSeq', seq: state.lastSeq },
    { op: 'logNumber', number: state.logNumber },
  ];
  for (const [key, value] of state.meta) edits.push({ op: 'setMeta', key, value });
  for (const [id, s] of state.stores) {
    edits.push({ op: 'addStore', id, lower: s.lower, upper: s.upper });
    if (s.files.length > 0) edits.push({ op: 'addFiles', id, files: s.files });
    if (s.flushedSeq > 0) edits.push({ op: 'flushed', id, seq: s.flushedSeq });
    for (const [family, seq] of Object.entries(s.familyDrops)) edits.push({ op: 'familyDrop', id, family, seq });
    for (const drop of s.rangeDrops) edits.push({ op: 'rangeDrop', id, drop });
  }
  return edits;
}
