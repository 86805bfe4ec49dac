import { createRequire } from 'node:module';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { FAMILY, KEY_LENGTH, QUALIFIER } from '../workloads/dataset.js';

/**
 * Requests of the load generator, encoded once with the Bigtable protos that
 * the official clients use (the pinned google-proto-files package), then
 * sent as raw bytes. Requests that address a row are encoded with a
 * placeholder key of the benchmark's fixed key length; each lane (call slot) keeps
 * one copy of the template and writes its row key over the placeholder, so no
 * protobuf encoding happens while load is generated.
 */

const SERVICE = 'google.bigtable.v2.Bigtable';
export const METHOD = {
  readRows: `/${SERVICE}/ReadRows`,
  mutateRow: `/${SERVICE}/MutateRow`,
} as const;

const KEY_HOLE = Buffer.from('\u0000KEY-HOLE\u0000', 'latin1');
if (KEY_HOLE.length !== KEY_LENGTH) throw new Error('the key placeholder must be as long as the benchmark keys');

type Serialize = (value: object) => Buffer;
let serializers: { readRows: Serialize; mutateRow: Serialize } | undefined;

function load(): { readRows: Serialize; mutateRow: Serialize } {
  if (serializers === undefined) {
    const require = createRequire(import.meta.url);
    const root = path.dirname(require.resolve('google-proto-files/package.json'));
    // Only requests are encoded here: of the loader's options just the field names (camelCase,
    // keepCase false) matter; the others shape decoded messages.
    const def = protoLoader.loadSync(['google/bigtable/v2/bigtable.proto'], { keepCase: false, includeDirs: [root] });
    const service = def[SERVICE] as Record<string, { requestSerialize: Serialize; path: string }> | undefined;
    const readRows = service?.['ReadRows'];
    const mutateRow = service?.['MutateRow'];
    if (readRows === undefined || mutateRow === undefined) throw new Error(`${SERVICE} ReadRows/MutateRow are missing from google-proto-files`);
    serializers = { readRows: readRows.requestSerialize, mutateRow: mutateRow.requestSerialize };
  }
  return serializers;
}

/** An encoded request with room for a row key at `keyOffset`. */
export interface KeyedRequest {
  readonly bytes: Buffer;
  readonly keyOffset: number;
}

function keyed(bytes: Buffer): KeyedRequest {
  const at = bytes.indexOf(KEY_HOLE);
  if (at < 0 || bytes.indexOf(KEY_HOLE, at + 1) >= 0) throw new Error('the key placeholder must occur exactly once in an encoded request');
  return { bytes, keyOffset: at };
}

/** ReadRows of one row key (a point read), at most one row. */
export function pointReadRequest(tableName: string): KeyedRequest {
  return keyed(load().readRows({ tableName, rows: { rowKeys: [KEY_HOLE] }, rowsLimit: '1' }));
}

/** MutateRow setting the benchmark cell of one row to `value` at `timestampMicros`. */
export function mutateRowRequest(tableName: string, value: Buffer, timestampMicros: number): KeyedRequest {
  const setCell = { familyName: FAMILY, columnQualifier: Buffer.from(QUALIFIER, 'latin1'), timestampMicros: String(timestampMicros), value };
  return keyed(load().mutateRow({ tableName, rowKey: KEY_HOLE, mutations: [{ setCell }] }));
}

/** ReadRows of the whole table. */
export function fullScanRequest(tableName: string): Buffer {
  return load().readRows({ tableName, rows: { rowRanges: [{}] } });
}

/** Writes a row key (ASCII, exactly KEY_LENGTH bytes) into a copy of `req` that starts `headerBytes` into `buffer`. */
export function setKey(req: KeyedRequest, buffer: Buffer, headerBytes: number, key: string): void {
  if (key.length !== KEY_LENGTH) throw new Error(`load-generator keys are ${KEY_LENGTH} bytes, got "${key}"`);
  buffer.write(key, headerBytes + req.keyOffset, KEY_LENGTH, 'latin1');
}
