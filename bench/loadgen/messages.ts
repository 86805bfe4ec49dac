import type { HistogramData } from '../stats/histogram.js';
import type { TransportKind } from './transport.js';

/** Messages between the load-generator driver and its worker processes (over the fork IPC channel). */

export type LoadgenKind = 'point-read' | 'write' | 'scan' | 'check-and-mutate' | 'increment';

export interface WorkerConfig {
  readonly kind: LoadgenKind;
  /** host:port of the server. */
  readonly address: string;
  /** Full table name (projects/…/instances/…/tables/…). */
  readonly tableName: string;
  /** Rows in the table (point reads pick keys below this; a scan must return this many). */
  readonly rows: number;
  readonly valueSize: number;
  /** Calls in flight in this process. */
  readonly inFlight: number;
  /** HTTP/2 connections opened by this process. */
  readonly channels: number;
  readonly seed: number;
  /** Increments: the hot row every process increments. */
  readonly hotRow?: string;
  readonly transport: TransportKind;
  /** Seconds of unmeasured load before reporting ready (warms this process's JIT and connections). */
  readonly warmupSeconds: number;
}

export type ToWorker = { readonly type: 'config'; readonly config: WorkerConfig } | { readonly type: 'go'; readonly seconds: number };

export interface WorkerTotals {
  readonly ops: number;
  readonly rows: number;
  readonly bytes: number;
}

export type FromWorker =
  | { readonly type: 'ready' }
  | ({ readonly type: 'progress' } & WorkerTotals)
  | ({ readonly type: 'done'; readonly seconds: number; readonly cpuSeconds: number; readonly latency: HistogramData } & WorkerTotals)
  | { readonly type: 'failed'; readonly message: string };
