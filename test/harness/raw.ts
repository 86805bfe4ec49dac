import type { Bigtable } from '@google-cloud/bigtable';

/**
 * Raw GAPIC calls through an official Node client (`Bigtable#request`), for
 * the parts of the API its handwritten surface does not expose (reversed
 * scans, CheckAndMutateRow without a predicate, binary keys). The request is
 * protobuf JSON as @google-cloud/bigtable accepts it (camelCase, Buffers for
 * bytes).
 */

/** FeatureFlags{reverse_scans: true}, base64: what cbt sends in `bigtable-features` before a reversed scan. */
export const REVERSE_SCANS_FEATURE = Buffer.from([0x08, 0x01]).toString('base64');

export interface RawCell {
  readonly key: Buffer;
  readonly family: string;
  readonly qualifier: Buffer;
  readonly timestamp: string;
  readonly value: Buffer;
  readonly labels: readonly string[];
}

interface Chunk {
  rowKey?: Buffer | Uint8Array;
  familyName?: { value: string } | null;
  qualifier?: { value: Buffer | Uint8Array } | null;
  timestampMicros?: string | number | { toString(): string };
  labels?: string[];
  value?: Buffer | Uint8Array;
  valueSize?: number;
  commitRow?: boolean;
  resetRow?: boolean;
}

/** One ReadRows response message: its chunks and last_scanned_row_key. */
export interface RawResponse {
  readonly chunks: readonly Chunk[];
  readonly lastScannedRowKey: Buffer;
}

export function rawReadRows(
  client: Bigtable,
  reqOpts: Record<string, unknown>,
  options: { reverseScans?: boolean } = {},
): Promise<RawResponse[]> {
  const headers: Record<string, string> = {};
  if (options.reverseScans) headers['bigtable-features'] = REVERSE_SCANS_FEATURE;
  return new Promise((resolve, reject) => {
    const out: RawResponse[] = [];
    client
      .request({ client: 'BigtableClient', method: 'readRows', reqOpts, gaxOpts: { otherArgs: { headers } } })
      .on('data', (d: { chunks?: Chunk[]; lastScannedRowKey?: Buffer }) =>
        out.push({ chunks: d.chunks ?? [], lastScannedRowKey: Buffer.from(d.lastScannedRowKey ?? []) }),
      )
      .on('error', reject)
      .on('end', () => resolve(out));
  });
}

/**
 * Assembles cells from raw chunks (the ReadRows protocol: family and qualifier
 * carried over from the previous chunk, values split across chunks), checking
 * the invariants a client relies on: commit at the end of each row, no row
 * crosses a message boundary.
 */
export function assembleCells(responses: readonly RawResponse[]): RawCell[] {
  const cells: RawCell[] = [];
  let key: Buffer | undefined;
  let family: string | undefined;
  let qualifier: Buffer | undefined;
  let pending: { timestamp: string; labels: string[]; parts: Buffer[] } | undefined;
  for (const response of responses) {
    for (const chunk of response.chunks) {
      if (chunk.resetRow) throw new Error('unexpected reset_row');
      if (chunk.rowKey && chunk.rowKey.length > 0) key = Buffer.from(chunk.rowKey);
      if (chunk.familyName) family = chunk.familyName.value;
      if (chunk.qualifier) qualifier = Buffer.from(chunk.qualifier.value);
      if (key === undefined || family === undefined || qualifier === undefined)
        throw new Error('chunk without row key, family or qualifier');
      if (!pending) pending = { timestamp: String(chunk.timestampMicros ?? '0'), labels: chunk.labels ?? [], parts: [] };
      pending.parts.push(Buffer.from(chunk.value ?? []));
      if (!chunk.valueSize) {
        cells.push({ key, family, qualifier, timestamp: pending.timestamp, value: Buffer.concat(pending.parts), labels: pending.labels });
        pending = undefined;
      }
      if (chunk.commitRow) {
        key = undefined;
        family = undefined;
        qualifier = undefined;
      }
    }
    if (key !== undefined || pending !== undefined) throw new Error('a row crosses a ReadRows message boundary');
  }
  return cells;
}

/** A unary RPC through the client: `client` is BigtableClient, BigtableTableAdminClient or BigtableInstanceAdminClient. */
export function rawUnary<T = unknown>(client: Bigtable, gapic: string, method: string, reqOpts: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    client.request({ client: gapic, method, reqOpts }, (err: Error | null, resp?: unknown) => {
      if (err) reject(err);
      else resolve(resp as T);
    });
  });
}

/**
 * A call of the client's generated Instance or Table Admin client (for the RPCs its handwritten surface lacks,
 * such as logical views): its answers, or for a long-running call the finished operation's [result, metadata, raw].
 */
export async function adminCall<T = unknown>(
  client: Bigtable,
  gapic: 'BigtableInstanceAdminClient' | 'BigtableTableAdminClient',
  method: string,
  reqOpts: object,
  gaxOpts?: object,
): Promise<T[]> {
  const answer = await new Promise<unknown[]>((resolve, reject) =>
    client.request(
      { client: gapic, method, reqOpts, ...(gaxOpts === undefined ? {} : { gaxOpts }) },
      (err: Error | null, ...rest: unknown[]) => (err ? reject(err) : resolve(rest)),
    ),
  );
  const first = answer[0] as { promise?: () => Promise<unknown[]> } | undefined;
  if (first !== undefined && typeof first.promise === 'function') return (await first.promise()) as T[];
  return answer as T[];
}
