/**
 * The properties block: facts about the table, as a block body whose keys
 * are property names (ascending) and whose values are:
 *
 *   compression     "lz4" | "none" (what the writer was asked for)
 *   created-at      varint, milliseconds since the Unix epoch
 *   creator         UTF-8 text naming the writer (e.g. "tabletop flush")
 *   data-blocks     varint
 *   entries         varint
 *   format-version  varint
 *   largest-key     the key's bytes (absent when entries = 0)
 *   max-entry-bytes varint, the largest key length + value length of one entry
 *                   (since 2026-11; absent in older files)
 *   raw-key-bytes   varint, sum of key lengths
 *   raw-value-bytes varint, sum of value lengths
 *   smallest-key    the key's bytes (absent when entries = 0)
 *
 * DO NOT CHANGE the names or encodings. Readers ignore names they do not
 * know, so later versions may add properties.
 */
import type { ByteString } from '../../model/bytes.js';
import { dataLoss } from '../../model/errors.js';
import { BlockBuilder } from './block-builder.js';
import { BlockCursor } from './block-cursor.js';
import { ByteReader } from '../../model/byte-reader.js';
import { putVarint, varintLength } from '../../model/byte-writer.js';

export type Compression = 'lz4' | 'none';

/** What a finished table holds (written to its properties block; `size` comes from the file). */
export interface SSTableInfo {
  /** File size in bytes. */
  readonly size: number;
  readonly entries: number;
  /** undefined when the table is empty. */
  readonly smallestKey: ByteString | undefined;
  readonly largestKey: ByteString | undefined;
  readonly rawKeyBytes: number;
  readonly rawValueBytes: number;
  /** The largest key + value length of one entry; undefined in files written before the property existed. */
  readonly maxEntryBytes: number | undefined;
  readonly dataBlocks: number;
  readonly formatVersion: number;
  readonly createdAtMillis: number;
  readonly creator: string;
  readonly compression: Compression;
}

function varintValue(v: number): Buffer {
  const b = Buffer.allocUnsafe(varintLength(v));
  putVarint(b, 0, v);
  return b;
}

/** The properties block body for `info` (its `size` is not stored). */
export function encodeProperties(info: Omit<SSTableInfo, 'size'>, restartInterval: number): Buffer {
  const props: [string, Buffer][] = [
    ['compression', Buffer.from(info.compression, 'latin1')],
    ['created-at', varintValue(info.createdAtMillis)],
    ['creator', Buffer.from(info.creator, 'utf8')],
    ['data-blocks', varintValue(info.dataBlocks)],
    ['entries', varintValue(info.entries)],
    ['format-version', varintValue(info.formatVersion)],
    ['raw-key-bytes', varintValue(info.rawKeyBytes)],
    ['raw-value-bytes', varintValue(info.rawValueBytes)],
  ];
  if (info.maxEntryBytes !== undefined) props.push(['max-entry-bytes', varintValue(info.maxEntryBytes)]);
  if (info.smallestKey !== undefined) props.push(['smallest-key', Buffer.from(info.smallestKey, 'latin1')]);
  if (info.largestKey !== undefined) props.push(['largest-key', Buffer.from(info.largestKey, 'latin1')]);
  props.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const b = new BlockBuilder(restartInterval, 512);
  for (const [name, value] of props) b.add(name, value);
  return Buffer.from(b.finish());
}

/** Decodes a checked properties body; DataLoss when a required property is missing or malformed. */
export function decodeProperties(body: Buffer, path: string, offset: number, size: number): SSTableInfo {
  const bad = (reason: string): never => {
    throw dataLoss(`sstable ${path}: properties block at offset ${offset} is malformed: ${reason}`);
  };
  const values = new Map<string, Buffer>();
  const c = new BlockCursor();
  c.reset(body, path, offset);
  for (c.first(); c.valid; c.next()) values.set(c.key, c.value);
  const num = (name: string): number => {
    const v = values.get(name) ?? bad(`property ${name} is missing`);
    const r = new ByteReader(v, 0, v.length, (why) => bad(`property ${name}: ${why}`));
    const n = r.varint(name);
    if (!r.done) bad(`property ${name} has trailing bytes`);
    return n;
  };
  const text = (name: string): string => (values.get(name) ?? bad(`property ${name} is missing`)).toString('utf8');
  const compression = text('compression');
  if (compression !== 'lz4' && compression !== 'none') bad(`unknown compression "${compression}"`);
  const entries = num('entries');
  const smallest = values.get('smallest-key');
  const largest = values.get('largest-key');
  if ((entries === 0) !== (smallest === undefined) || (entries === 0) !== (largest === undefined)) {
    bad(`smallest/largest keys do not match ${entries} entries`);
  }
  return {
    size,
    entries,
    smallestKey: smallest?.toString('latin1'),
    largestKey: largest?.toString('latin1'),
    rawKeyBytes: num('raw-key-bytes'),
    rawValueBytes: num('raw-value-bytes'),
    maxEntryBytes: values.has('max-entry-bytes') ? num('max-entry-bytes') : undefined,
    dataBlocks: num('data-blocks'),
    formatVersion: num('format-version'),
    createdAtMillis: num('created-at'),
    creator: text('creator'),
    compression: compression as Compression,
  };
}
