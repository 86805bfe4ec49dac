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
  checkAndMutateRow: `/${SERVICE}/CheckAndMutateRow`,
  readModifyWriteRow: `/${SERVICE}/ReadModifyWriteRow`,
} as const;

const KEY_HOLE = Buffer.from('\u0000KEY-HOLE\u0000', 'latin1');
if (KEY_HOLE.length !== KEY_LENGTH) throw new Error('the key placeholder must be as long as the benchmark keys');

type Serialize = (value: object) => Buffer;
type Serializers = Record<'readRows' | 'mutateRow' | 'checkAndMutateRow' | 'readModifyWriteRow', Serialize>;
let serializers: Serializers | undefined;

function load(): Serializers {
  if (serializers === undefined) {
    const require = createRequire(import.meta.url);
    const root = path.dirname(require.resolve('google-proto-files/package.json'));
    // Only requests are encoded here: of the loader's options just the field names (camelCase,
    // keepCase false) matter; the others shape decoded messages.
    const def = protoLoader.loadSync(['google/bigtable/v2/bigtable.proto'], { keepCase: false, includeDirs: [root] });
    const service = def[SERVICE] as Record<string, { requestSerialize: Serialize; path: string }> | undefined;
    const method = (name: string): Serialize => {
      const m = service?.[name];
      if (m === undefined) throw new Error(`${SERVICE} ${name} is missing from google-proto-files`);
      return m.requestSerialize;
    };
    serializers = {
      readRows: method('ReadRows'),
      mutateRow: method('MutateRow'),
      checkAndMutateRow: method('CheckAndMutateRow'),
      readModifyWriteRow: method('ReadModifyWriteRow'),
    };
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
  const setCell = {
    familyName: FAMILY,
    columnQualifier: Buffer.from(QUALIFIER, 'latin1'),
    timestampMicros: String(timestampMicros),
    value,
  };
  return keyed(load().mutateRow({ tableName, rowKey: KEY_HOLE, mutations: [{ setCell }] }));
}

/**
 * CheckAndMutateRow of one row: if it has a cell in the benchmark column, set
 * that cell to `value` at the server's time, otherwise set it too (every
 * call reads the row, evaluates the filter and writes).
 */
export function checkAndMutateRequest(tableName: string, value: Buffer): KeyedRequest {
  const setCell = { familyName: FAMILY, columnQualifier: Buffer.from(QUALIFIER, 'latin1'), timestampMicros: '-1', value };
  return keyed(
    load().checkAndMutateRow({
      tableName,
      rowKey: KEY_HOLE,
      predicateFilter: { columnQualifierRegexFilter: Buffer.from(QUALIFIER, 'latin1') },
      trueMutations: [{ setCell }],
      falseMutations: [{ setCell }],
    }),
  );
}

/** ReadModifyWriteRow adding 1 to the 64-bit counter `family:qualifier` of one row. */
export function incrementRequest(tableName: string, rowKey: string, qualifier: string): Buffer {
  return load().readModifyWriteRow({
    tableName,
    rowKey: Buffer.from(rowKey, 'latin1'),
    rules: [{ familyName: FAMILY, columnQualifier: Buffer.from(qualifier, 'latin1'), incrementAmount: '1' }],
  });
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
