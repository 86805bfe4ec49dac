/**
 * The engine's topology: which stores exist, which keys each owns and which
 * SSTables each lists. Splits and merges change it without rewriting data
 * (children list their parents' files, shared until compactions rewrite
 * each side), deleting a store takes it out; each change is one manifest
 * edit, recorded before the stores in memory change, so a crash leaves the
 * old topology or the new one.
 *
 * The functions here do the change itself; the engine runs them as
 * exclusive background jobs once the stores involved are flushed (see
 * DiskEngine.splitStore, mergeStores, deleteStore).
 */
import type { ByteString } from '../../model/bytes.js';
import type { FileMeta, ManifestEdit, StoreState } from '../manifest/manifest-state.js';
import type { MetaUpdate } from '../store.js';
import type { DiskStore } from './disk-store.js';
import type { TableFile } from './table-file.js';

/** What a topology change needs from the engine (implemented by DiskEngine). */
export interface TopologyHost {
  /** The live stores by id: the engine's own map, changed here. */
  readonly stores: Map<string, DiskStore>;
  /** What the manifest records for a store. */
  storeState(id: string): StoreState | undefined;
  /** Records edits atomically in the manifest (a failure fails the engine). */
  record(edits: readonly ManifestEdit[]): Promise<void>;
  /** A new store (not yet in `stores`). */
  newStore(id: string): DiskStore;
  /** Forgets a store's memtables (the store is gone). */
  discardMemtables(store: DiskStore): void;
  scheduleCompaction(store: DiskStore): void;
}

function overlaps(meta: FileMeta, lower: ByteString, upper: ByteString | undefined): boolean {
  return meta.largest >= lower && (upper === undefined || meta.smallest < upper);
}

/**
 * Replaces a flushed store by two that share its files, each owning one side
 * of `at`: one manifest edit deletes the parent and adds the children (with
 * `meta`, when given).
 */
export async function splitFlushed(
  host: TopologyHost,
  parent: DiskStore,
  at: ByteString,
  leftId: string,
  rightId: string,
  meta?: MetaUpdate,
): Promise<void> {
  const children: [DiskStore, ByteString, ByteString | undefined][] = [
    [host.newStore(leftId), parent.lower, at],
    [host.newStore(rightId), at, parent.upper],
  ];
  const edits: ManifestEdit[] = [{ op: 'deleteStore', id: parent.id }];
  for (const [child, lower, upper] of children) {
    child.lower = lower;
    child.upper = upper;
    child.files = parent.files.filter((f) => overlaps(f.meta, lower, upper));
    edits.push(...inheritEdits(host, child, [parent]));
  }
  if (meta !== undefined) edits.push({ op: 'setMeta', key: meta.key, value: meta.value() });
  await host.record(edits);
  replaceStores(
    host,
    [parent],
    children.map(([c]) => c),
  );
}

/** Replaces two flushed adjacent stores by one that lists the files of both (shared ones once). */
export async function mergeFlushed(
  host: TopologyHost,
  left: DiskStore,
  right: DiskStore,
  mergedId: string,
  meta?: MetaUpdate,
): Promise<void> {
  const merged = host.newStore(mergedId);
  merged.lower = left.lower < right.lower ? left.lower : right.lower;
  merged.upper = left.upper === undefined || right.upper === undefined ? undefined : left.upper > right.upper ? left.upper : right.upper;
  merged.files = [...new Set([...left.files, ...right.files])].sort(
    (a, b) => b.meta.maxSeq - a.meta.maxSeq || b.meta.number - a.meta.number,
  );
  const edits: ManifestEdit[] = [
    { op: 'deleteStore', id: left.id },
    { op: 'deleteStore', id: right.id },
    ...inheritEdits(host, merged, [left, right]),
  ];
  if (meta !== undefined) edits.push({ op: 'setMeta', key: meta.key, value: meta.value() });
  await host.record(edits);
  replaceStores(host, [left, right], [merged]);
}

/**
 * Adds, for each flushed source, a clone listing the same files with the
 * same key range, drops and flush state: one manifest edit adds every clone
 * (with `meta`, when given), so a crash leaves none of them or all. A file
 * then stays until no store lists it (retireFiles), so compactions and drops
 * of the source and of the clone each let go of their own reference only.
 */
export async function cloneFlushed(host: TopologyHost, pairs: readonly (readonly [DiskStore, string])[], meta?: MetaUpdate): Promise<void> {
  const clones: DiskStore[] = [];
  const edits: ManifestEdit[] = [];
  for (const [source, cloneId] of pairs) {
    const clone = host.newStore(cloneId);
    clone.lower = source.lower;
    clone.upper = source.upper;
    clone.files = source.files.slice();
    // What the source's major compactions already applied need not be applied again.
    clone.dropsAppliedSeq = source.dropsAppliedSeq;
    clone.lastMajorCompactionMillis = source.lastMajorCompactionMillis;
    edits.push(...inheritEdits(host, clone, [source]));
    clones.push(clone);
  }
  if (meta !== undefined) edits.push({ op: 'setMeta', key: meta.key, value: meta.value() });
  await host.record(edits);
  // No compaction is scheduled: a clone shares its source's files as they are until it is written to.
  for (const c of clones) installStore(host, c);
}

/** Takes a store out: it refuses every call from now on, and its files and memtables go once the manifest has recorded it. */
export async function deleteStore(host: TopologyHost, store: DiskStore): Promise<void> {
  host.stores.delete(store.id);
  store.deleted = true;
  store.closed = true;
  await host.record([{ op: 'deleteStore', id: store.id }]);
  retireFiles(host.stores, store, store.files);
  host.discardMemtables(store);
}

/**
 * Removes files from a store's live list and lets go of the list's reference on each; they
 * are deleted when no reader holds them. Files no longer listed (another caller retired them
 * meanwhile: a range drop racing a compaction, a deleted store) are left alone.
 */
export function retireFiles(stores: ReadonlyMap<string, DiskStore>, store: DiskStore, files: readonly TableFile[]): void {
  if (files.length === 0) return;
  const gone = new Set(files);
  const retired = store.files.filter((f) => gone.has(f));
  store.files = store.files.filter((f) => !gone.has(f));
  for (const f of retired) {
    // A file shared after a split stays until the last store that lists it lets go.
    if (!listedElsewhere(stores, f, store)) f.obsolete = true;
    f.unref();
  }
}

function listedElsewhere(stores: ReadonlyMap<string, DiskStore>, file: TableFile, except: DiskStore): boolean {
  for (const s of stores.values()) if (s !== except && s.files.includes(file)) return true;
  return false;
}

/** Manifest edits creating `child` with its files and the drops and flush state of `parents`. */
function inheritEdits(host: TopologyHost, child: DiskStore, parents: readonly DiskStore[]): ManifestEdit[] {
  const edits: ManifestEdit[] = [{ op: 'addStore', id: child.id, lower: child.lower, upper: child.upper ?? null }];
  if (child.files.length > 0) edits.push({ op: 'addFiles', id: child.id, files: child.files.map((f) => f.meta) });
  let flushed = 0;
  for (const p of parents) {
    const st = host.storeState(p.id);
    if (st === undefined) continue;
    flushed = Math.max(flushed, st.flushedSeq);
    for (const [family, seq] of Object.entries(st.familyDrops)) edits.push({ op: 'familyDrop', id: child.id, family, seq });
    for (const drop of st.rangeDrops) edits.push({ op: 'rangeDrop', id: child.id, drop });
  }
  if (flushed > 0) edits.push({ op: 'flushed', id: child.id, seq: flushed });
  return edits;
}

/** Swaps stores in memory after the manifest recorded it: children take references on the files. */
function replaceStores(host: TopologyHost, olds: readonly DiskStore[], news: readonly DiskStore[]): void {
  for (const n of news) {
    n.lastMajorCompactionMillis = Date.now();
    installStore(host, n);
  }
  for (const o of olds) {
    host.stores.delete(o.id);
    o.deleted = true;
    o.closed = true;
    retireFiles(host.stores, o, o.files);
    host.discardMemtables(o);
  }
  for (const n of news) host.scheduleCompaction(n);
}

/** Makes a store the manifest now records live: it takes a reference on each file it lists and its drops. */
function installStore(host: TopologyHost, store: DiskStore): void {
  for (const f of store.files) f.ref();
  const st = host.storeState(store.id);
  if (st !== undefined) store.drops.update(st.familyDrops, st.rangeDrops);
  host.stores.set(store.id, store);
}
