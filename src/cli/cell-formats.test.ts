import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FormatError,
  SEQFILE_MAGIC,
  cellFromCsv,
  cellFromJsonl,
  cellToCsv,
  cellToJsonl,
  cellToSeqfile,
  decodeBytes,
  encodeBytes,
  readSeqfile,
  splitCsvLine,
} from './cell-formats.js';
import type { Cell } from './table-cells.js';

const bytes = fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a));
const texty = fc.string({ maxLength: 20 }).map((s) => Buffer.from(s, 'utf8'));
const cell: fc.Arbitrary<Cell> = fc.record({
  key: fc.oneof(bytes, texty).filter((b) => b.length > 0),
  family: fc.stringMatching(/^[-_.a-zA-Z0-9]{1,20}$/),
  qualifier: fc.oneof(bytes, texty),
  timestamp: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  value: fc.oneof(bytes, texty),
});

async function* chunked(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function readAll(buf: Buffer, size: number): Promise<Cell[]> {
  const out: Cell[] = [];
  for await (const { cell: c } of readSeqfile(chunked(buf, size))) out.push(c);
  return out;
}

describe('cell formats', () => {
  it('encode bytes as text only when that reads back the same bytes', () => {
    expect(encodeBytes(Buffer.from('user#1 ünï'))).toBe('user#1 ünï');
    expect(encodeBytes(Buffer.from([0, 1, 0xff]))).toBe('b64:AAH/');
    expect(encodeBytes(Buffer.from('line\nbreak'))).toBe(`b64:${Buffer.from('line\nbreak').toString('base64')}`);
    expect(encodeBytes(Buffer.from('b64:looks encoded'))).toBe(`b64:${Buffer.from('b64:looks encoded').toString('base64')}`);
    expect(() => decodeBytes('b64:not base64!')).toThrow(FormatError);
    fc.assert(
      fc.property(fc.oneof(bytes, texty), (b) => {
        expect(decodeBytes(encodeBytes(b))).toEqual(b);
      }),
    );
  });

  it('round-trip any cell through jsonl, csv and seqfile', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cell, { maxLength: 10 }), fc.integer({ min: 1, max: 64 }), async (cells, chunk) => {
        for (const c of cells) {
          const jsonl = cellToJsonl(c);
          const csv = cellToCsv(c);
          expect(jsonl).not.toContain('\n');
          expect(csv).not.toMatch(/[\r\n]/);
          expect(cellFromJsonl(jsonl)).toEqual(c);
          expect(cellFromCsv(csv)).toEqual(c);
        }
        const file = Buffer.concat([SEQFILE_MAGIC, ...cells.map(cellToSeqfile)]);
        expect(await readAll(file, chunk)).toEqual(cells);
      }),
    );
  });

  it('say what is wrong with a bad record', () => {
    expect(() => cellFromJsonl('{"key":"a"')).toThrow(/not JSON/);
    expect(() => cellFromJsonl('[1]')).toThrow('not a JSON object');
    expect(() => cellFromJsonl('{"key":"a","family":"cf","qualifier":"q","timestamp":"1","value":3}')).toThrow('"value" must be a string');
    expect(() => cellFromJsonl('{"key":"","family":"cf","qualifier":"q","timestamp":"1","value":""}')).toThrow('the row key is empty');
    expect(() => cellFromJsonl('{"key":"a","family":"c f","qualifier":"q","timestamp":"1","value":""}')).toThrow('bad family name');
    expect(() => cellFromCsv('a,cf,q,9223372036854775808,v')).toThrow('bad timestamp');
    expect(() => cellFromCsv('a,cf,q,1')).toThrow('4 fields, expected 5');
    expect(() => splitCsvLine('"a"b,c')).toThrow('a "," must follow a quoted field (column 4)');
    expect(splitCsvLine('"a,""b""",,c')).toEqual(['a,"b"', '', 'c']);
  });

  it('name the record and byte offset where a seqfile is damaged', async () => {
    const c = { key: Buffer.from('k'), family: 'cf', qualifier: Buffer.from('q'), timestamp: '1000', value: Buffer.from('v') };
    const one = cellToSeqfile(c);
    const file = Buffer.concat([SEQFILE_MAGIC, one, one]);
    await expect(readAll(file.subarray(0, file.length - 1), 5)).rejects.toThrow(
      `record 2 (byte ${8 + one.length}): the file ends inside it`,
    );
    await expect(readAll(Buffer.from('PAR1....'), 5)).rejects.toThrow('not a tabletop seqfile');
    expect(await readAll(SEQFILE_MAGIC, 3)).toEqual([]);
  });
});
