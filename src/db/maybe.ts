import type { MaybePromise } from '../storage/store.js';

/**
 * Helpers for values that are ready now or later (MaybePromise): the
 * memory engine answers synchronously and the db layer keeps that fast path
 * free of promise allocations; a disk engine answers with promises.
 */

/** `f(v)`, now if `v` is ready, else once it resolves. */
export function andThen<T, U>(v: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/** Runs `fn` over `items` in order; synchronous for as long as every step is. */
export function forEachInOrder<T>(items: readonly T[], fn: (item: T, index: number) => MaybePromise<void>): MaybePromise<void> {
  for (let i = 0; i < items.length; i++) {
    const r = fn(items[i]!, i);
    if (r instanceof Promise) return r.then(() => forEachInOrder(items.slice(i + 1), (item, j) => fn(item, i + 1 + j)));
  }
  return undefined;
}
