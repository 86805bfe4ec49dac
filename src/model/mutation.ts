import type { ByteString } from './bytes.js';

/** Timestamp value of SetCell meaning "use the server's time". */
export const SERVER_TIME = -1;

/** The input of an aggregate mutation: an int64 or raw bytes. */
export type AggregateInput = { readonly kind: 'int'; readonly value: bigint } | { readonly kind: 'bytes'; readonly value: Uint8Array };

/**
 * One change to a row (the six kinds of the Data API's Mutation).
 * Time ranges are `[start, end)` in microseconds; `end` undefined is unbounded.
 */
export type Mutation =
  | {
      readonly kind: 'setCell';
      readonly family: string;
      readonly qualifier: ByteString;
      /** Microseconds, or SERVER_TIME. */
      readonly timestamp: number;
      readonly value: Uint8Array;
    }
  | {
      readonly kind: 'deleteFromColumn';
      readonly family: string;
      readonly qualifier: ByteString;
      readonly start: number;
      readonly end: number | undefined;
    }
  | { readonly kind: 'deleteFromFamily'; readonly family: string }
  | { readonly kind: 'deleteFromRow' }
  | {
      readonly kind: 'addToCell';
      readonly family: string;
      readonly qualifier: ByteString;
      readonly timestamp: number;
      readonly input: AggregateInput;
    }
  | {
      readonly kind: 'mergeToCell';
      readonly family: string;
      readonly qualifier: ByteString;
      readonly timestamp: number;
      /** A serialized aggregate state, as read back from an aggregate cell. */
      readonly input: Uint8Array;
    };

/** A ReadModifyWriteRow rule. */
export type ReadModifyWriteRule =
  | { readonly kind: 'append'; readonly family: string; readonly qualifier: ByteString; readonly value: Uint8Array }
  | { readonly kind: 'increment'; readonly family: string; readonly qualifier: ByteString; readonly amount: bigint };

/** A mutation of one row, as MutateRows carries it. */
export interface RowMutation {
  readonly key: ByteString;
  readonly mutations: readonly Mutation[];
}
