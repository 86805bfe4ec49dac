import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { isTabletopError } from '../../model/errors.js';
import type { Mutation } from '../../model/mutation.js';
import { DATA, loaderMethod } from '../testing/loader-codecs.js';
import { decodeMutateRowRequest, decodeMutateRowsRequest, decodeMutateRowsRequestParts } from './mutate-decoder.js';
import { mutationFromProto } from './mutation.js';
import type { PMutation } from './proto-types.js';

const mutateRows = loaderMethod(DATA, 'MutateRows');
const mutateRow = loaderMethod(DATA, 'MutateRow');
const encodeRows = (o: object): Buffer => mutateRows.requestSerialize(o);
const encodeRow = (o: object): Buffer => mutateRow.requestSerialize(o);

/** The model mutations the object path (loader decode + mutationFromProto) gives for the same bytes. */
function viaLoader(bytes: Buffer): { key: string; mutations: Mutation[] }[] {
  const req = mutateRows.requestDeserialize(bytes) as { entries?: { rowKey?: Buffer; mutations?: PMutation[] }[] };
  return (req.entries ?? []).map((e) => ({
    key: (e.rowKey ?? Buffer.alloc(0)).toString('latin1'),
    mutations: (e.mutations ?? []).map(mutationFromProto).filter((m): m is Mutation => m !== undefined),
  }));
}

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const TABLE = 'projects/p/instances/i/tables/t';

const every: PMutation[] = [
  { setCell: { familyName: 'cf', columnQualifier: b('q'), timestampMicros: '1000', value: b('v') } },
  { setCell: { familyName: 'cf', columnQualifier: b(''), timestampMicros: '-1', value: b('') } },
  {
    deleteFromColumn: {
      familyName: 'cf',
      columnQualifier: b('q'),
      timeRange: { startTimestampMicros: '1000', endTimestampMicros: '5000' },
    },
  },
  { deleteFromColumn: { familyName: 'cf', columnQualifier: b('q') } },
  { deleteFromFamily: { familyName: 'cf' } },
  { deleteFromRow: {} },
  {
    addToCell: {
      familyName: 'agg',
      columnQualifier: { rawValue: b('c') },
      timestamp: { rawTimestampMicros: '2000' },
      input: { intValue: '-9223372036854775808' },
    },
  },
  {
    addToCell: {
      familyName: 'hll',
      columnQualifier: { rawValue: b('c') },
      timestamp: { rawTimestampMicros: '2000' },
      input: { rawValue: b('item') },
    },
  },
  {
    mergeToCell: {
      familyName: 'agg',
      columnQualifier: { rawValue: b('c') },
      timestamp: { rawTimestampMicros: '0' },
      input: { rawValue: b('\x00\x00\x00\x00\x00\x00\x00\x05') },
    },
  },
  {
    mergeToCell: {
      familyName: 'agg',
      columnQualifier: { rawValue: b('c') },
      timestamp: { rawTimestampMicros: '0' },
      input: { intValue: '7' },
    },
  },
];

describe('decodeMutateRowsRequest', () => {
  it('decodes every mutation kind like the object path', () => {
    const bytes = encodeRows({
      tableName: TABLE,
      appProfileId: 'prof',
      entries: [
        { rowKey: b('k1'), mutations: every },
        { rowKey: b('\xff\x00'), mutations: [every[0]] },
      ],
    });
    const d = decodeMutateRowsRequest(bytes);
    expect(d.error).toBeUndefined();
    expect(d.tableName).toBe(TABLE);
    expect(d.appProfileId).toBe('prof');
    expect(d.mutationCount).toBe(every.length + 1);
    expect(d.entries.map((e) => ({ key: e.key, mutations: e.mutations }))).toEqual(viaLoader(bytes));
    expect(d.entries.every((e) => e.error === undefined)).toBe(true);
    const m = d.entries[0]!.mutations;
    expect(m[0]).toEqual({ kind: 'setCell', family: 'cf', qualifier: 'q', timestamp: 1000, value: b('v') });
    expect(m[1]).toMatchObject({ kind: 'setCell', qualifier: '', timestamp: -1 });
    expect(m[2]).toEqual({ kind: 'deleteFromColumn', family: 'cf', qualifier: 'q', start: 1000, end: 5000 });
    expect(m[3]).toEqual({ kind: 'deleteFromColumn', family: 'cf', qualifier: 'q', start: 0, end: undefined });
    expect(m[6]).toEqual({
      kind: 'addToCell',
      family: 'agg',
      qualifier: 'c',
      timestamp: 2000,
      input: { kind: 'int', value: -(2n ** 63n) },
    });
    expect(m[9]).toMatchObject({ kind: 'mergeToCell', input: b('\x00\x00\x00\x00\x00\x00\x00\x07') });
  });

  it('decodes large values exactly, as views of the request buffer (no copy)', () => {
    const big = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const bytes = encodeRows({
      tableName: TABLE,
      entries: [{ rowKey: b('k'), mutations: [{ setCell: { familyName: 'f', value: big } }] }],
    });
    const d = decodeMutateRowsRequest(bytes);
    const m = d.entries[0]!.mutations[0]!;
    expect(m.kind === 'setCell' && Buffer.from(m.value).equals(big)).toBe(true);
    // The write path copies values into the commit log (or the in-memory store copies them), so
    // the decoder does not: the value shares the request's memory.
    expect(m.kind === 'setCell' && m.value.buffer === bytes.buffer).toBe(true);
  });

  it('skips unknown fields at every level', () => {
    const W = protobuf.Writer;
    const setCell = W.create()
      .uint32((1 << 3) | 2)
      .string('cf')
      .uint32((99 << 3) | 0)
      .uint64(12345)
      .uint32((4 << 3) | 2)
      .bytes(b('v'))
      .uint32((3 << 3) | 0)
      .int64(3000)
      .finish();
    const mutation = W.create()
      .uint32((77 << 3) | 5)
      .fixed32(1)
      .uint32((1 << 3) | 2)
      .bytes(setCell)
      .uint32((78 << 3) | 1)
      .fixed64(9)
      .finish();
    const entry = W.create()
      .uint32((3 << 3) | 2)
      .bytes(b('idempotency'))
      .uint32((1 << 3) | 2)
      .bytes(b('row'))
      .uint32((2 << 3) | 2)
      .bytes(mutation)
      .uint32((50 << 3) | 2)
      .string('junk')
      .finish();
    const req = W.create()
      .uint32((1 << 3) | 2)
      .string(TABLE)
      .uint32((2 << 3) | 2)
      .bytes(entry)
      .uint32((1000 << 3) | 2)
      .bytes(b('xyz'))
      .finish();
    const d = decodeMutateRowsRequest(Buffer.from(req));
    expect(d.error).toBeUndefined();
    expect(d.entries).toEqual([
      {
        key: 'row',
        mutations: [{ kind: 'setCell', family: 'cf', qualifier: '', timestamp: 3000, value: b('v') }],
        sent: 1,
        error: undefined,
      },
    ]);
  });

  it('reports an invalid mutation as its entry error only', () => {
    const bytes = encodeRows({
      tableName: TABLE,
      entries: [
        { rowKey: b('ok'), mutations: [every[0]] },
        { rowKey: b('nokind'), mutations: [every[0], {}] },
        { rowKey: b('huge-ts'), mutations: [{ setCell: { familyName: 'f', timestampMicros: '9007199254740993' } }] },
        {
          rowKey: b('bad-value-kind'),
          mutations: [
            {
              addToCell: {
                familyName: 'f',
                columnQualifier: { stringValue: 'q' },
                timestamp: { rawTimestampMicros: '0' },
                input: { intValue: '1' },
              },
            },
          ],
        },
        { rowKey: b('after'), mutations: [every[5]] },
      ],
    });
    const d = decodeMutateRowsRequest(bytes);
    expect(d.error).toBeUndefined();
    expect(d.entries.map((e) => e.key)).toEqual(['ok', 'nokind', 'huge-ts', 'bad-value-kind', 'after']);
    expect(d.entries.map((e) => e.error?.code)).toEqual([undefined, 'InvalidArgument', 'InvalidArgument', 'InvalidArgument', undefined]);
    expect(d.entries[1]!.error!.message).toMatch(/no mutation set/);
    expect(d.entries[2]!.error!.message).toMatch(/SetCell.timestamp_micros/);
    expect(d.entries[3]!.error!.message).toMatch(/column_qualifier.*raw_value.*string_value/);
    expect(d.entries[4]!.mutations).toEqual([{ kind: 'deleteFromRow' }]);
  });

  it('drops aggregate mutations whose input is NULL but counts them as sent', () => {
    const bytes = encodeRows({
      tableName: TABLE,
      entries: [
        {
          rowKey: b('k'),
          mutations: [
            {
              mergeToCell: { familyName: 'agg', columnQualifier: { rawValue: b('c') }, timestamp: { rawTimestampMicros: '0' }, input: {} },
            },
            { addToCell: { familyName: 'agg', columnQualifier: { rawValue: b('c') }, timestamp: { rawTimestampMicros: '0' } } },
          ],
        },
      ],
    });
    const d = decodeMutateRowsRequest(bytes);
    expect(d.entries[0]).toMatchObject({ mutations: [], sent: 2, error: undefined });
  });

  it('turns malformed bytes into a request-wide InvalidArgument, never a throw', () => {
    const good = encodeRows({ tableName: TABLE, entries: [{ rowKey: b('k'), mutations: every }] });
    for (let cut = 1; cut < good.length; cut += 3) {
      const d = decodeMutateRowsRequest(good.subarray(0, cut));
      if (d.error !== undefined) {
        expect(isTabletopError(d.error, 'InvalidArgument')).toBe(true);
        expect(d.error.message).toMatch(/^Malformed MutateRowsRequest/);
      }
    }
    const d = decodeMutateRowsRequest(Buffer.from([0x12, 0x05, 0x0a]));
    expect(d.error?.code).toBe('InvalidArgument');
    expect(decodeMutateRowsRequest(Buffer.from([0x0f])).error?.code).toBe('InvalidArgument'); // wire type 7
    expect(decodeMutateRowsRequest(Buffer.from([0x00, 0x00])).error?.message).toMatch(/field number 0/);
  });

  it('rejects a field that runs past the end of its sub-message, even when the message has the bytes', () => {
    const W = protobuf.Writer;
    // SetCell whose value claims 6 bytes while the SetCell is 4 bytes long; the bytes after it make up the difference.
    const setCell = Buffer.from([0x22, 0x06, 0x61, 0x62]);
    const mutation = Buffer.concat([Buffer.from([0x0a, setCell.length]), setCell]);
    const entry = Buffer.concat([
      Buffer.from(
        W.create()
          .uint32((1 << 3) | 2)
          .bytes(b('k'))
          .finish(),
      ),
      Buffer.from([0x12, mutation.length]),
      mutation,
    ]);
    const req = Buffer.concat([
      Buffer.from([0x12, entry.length]),
      entry,
      Buffer.from(
        W.create()
          .uint32((3 << 3) | 2)
          .string('pr')
          .finish(),
      ),
    ]);
    const d = decodeMutateRowsRequest(req);
    expect(d.error?.code).toBe('InvalidArgument');
    expect(d.error?.message).toMatch(/overruns its length/);
    // The same for a DeleteFromColumn time range (two bytes) whose timestamp varint runs one byte past it.
    const del = Buffer.from([0x1a, 0x02, 0x08, 0x80, 0x01]);
    const m2 = Buffer.concat([Buffer.from([0x12, del.length]), del]);
    const e2 = Buffer.concat([Buffer.from([0x12, m2.length]), m2]);
    expect(decodeMutateRowsRequest(Buffer.concat([Buffer.from([0x12, e2.length]), e2])).error?.message).toMatch(/overruns its length/);
  });

  it('agrees with the object path on random requests (property)', () => {
    const bytesArb = (max: number) => fc.uint8Array({ maxLength: max }).map((u) => Buffer.from(u));
    const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
    const safeTs = fc.integer({ min: -1, max: Number.MAX_SAFE_INTEGER }).map(String);
    const value = fc.oneof(
      fc.record({ rawValue: bytesArb(8) }),
      fc.record({ bytesValue: bytesArb(8) }),
      fc.record({ intValue: i64 }),
      fc.record({ rawTimestampMicros: safeTs }),
      fc.constant({}),
    );
    const family = fc.constantFrom('', 'cf', 'f-1', 'ünï');
    const mutation: fc.Arbitrary<PMutation> = fc.oneof(
      fc.record({
        setCell: fc.record(
          { familyName: family, columnQualifier: bytesArb(6), timestampMicros: safeTs, value: bytesArb(20) },
          { requiredKeys: [] },
        ),
      }),
      fc.record({
        deleteFromColumn: fc.record(
          {
            familyName: family,
            columnQualifier: bytesArb(6),
            timeRange: fc.record({ startTimestampMicros: safeTs, endTimestampMicros: safeTs }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
      }),
      fc.record({ deleteFromFamily: fc.record({ familyName: family }, { requiredKeys: [] }) }),
      fc.constant({ deleteFromRow: {} }),
      fc.record({
        addToCell: fc.record({ familyName: family, columnQualifier: value, timestamp: value, input: value }, { requiredKeys: [] }),
      }),
      fc.record({
        mergeToCell: fc.record({ familyName: family, columnQualifier: value, timestamp: value, input: value }, { requiredKeys: [] }),
      }),
      fc.constant({}),
    );
    const entry = fc.record({ rowKey: bytesArb(10), mutations: fc.array(mutation, { maxLength: 5 }) });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
        const bytes = encodeRows({ tableName: TABLE, entries });
        const d = decodeMutateRowsRequest(bytes);
        expect(d.error).toBeUndefined();
        const loader = mutateRows.requestDeserialize(bytes) as { entries?: { rowKey?: Buffer; mutations?: PMutation[] }[] };
        expect(d.entries).toHaveLength(entries.length);
        d.entries.forEach((e, i) => {
          const le = loader.entries?.[i] ?? {};
          expect(e.key).toBe((le.rowKey ?? Buffer.alloc(0)).toString('latin1'));
          expect(e.sent).toBe(le.mutations?.length ?? 0);
          // The object path, mutation by mutation: the first failure is the entry's error.
          let expected: Mutation[] = [];
          let error: string | undefined;
          for (const pm of le.mutations ?? []) {
            try {
              const m = mutationFromProto(pm);
              if (m !== undefined) expected.push(m);
            } catch (err) {
              error ??= (err as Error).message;
            }
          }
          expect(e.error?.message).toBe(error);
          if (error === undefined) expect(e.mutations).toEqual(expected);
          expected = [];
        });
      }),
      { numRuns: 400 },
    );
  });
});

/** `bytes` cut at `cuts` (offsets, any order, repeats make empty pieces), as fresh copies (no shared memory with `bytes`). */
function piecesOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [0, ...[...cuts].map((c) => Math.min(c, bytes.length)).sort((x, y) => x - y), bytes.length];
  // Buffer.alloc, not Buffer.from: small copies would share Node's pool, and tests tell pieces apart by their memory.
  return at.slice(1).map((end, i) => {
    const piece = Buffer.alloc(end - at[i]!);
    bytes.copy(piece, 0, at[i]!, end);
    return piece;
  });
}

/** A decoded request with values as plain bytes and errors as their code and message, for comparing two decodes. */
function plain(d: ReturnType<typeof decodeMutateRowsRequest>): unknown {
  return JSON.parse(
    JSON.stringify(d, (_k, v: unknown) =>
      typeof v === 'bigint' ? `${v}n` : v instanceof Error ? { error: v.message, code: (v as { code?: unknown }).code } : v,
    ),
  );
}

describe('decodeMutateRowsRequestParts (a request in the pieces it arrived in)', () => {
  const W = protobuf.Writer;
  const request = encodeRows({
    tableName: TABLE,
    appProfileId: 'prof',
    entries: [
      { rowKey: b('k1'), mutations: every },
      { rowKey: b('nokind'), mutations: [every[0], {}] },
      { rowKey: b('\xff\x00'), mutations: [{ setCell: { familyName: 'cf', columnQualifier: b('q'), value: Buffer.alloc(300, 7) } }] },
    ],
  });

  it('decodes like the joined request wherever the pieces are cut, including empty pieces', () => {
    const whole = plain(decodeMutateRowsRequest(request));
    for (let cut = 0; cut <= request.length; cut++) {
      expect(plain(decodeMutateRowsRequestParts(piecesOf(request, [cut])))).toEqual(whole);
      expect(plain(decodeMutateRowsRequestParts(piecesOf(request, [cut, cut, cut + 1, cut + 2])))).toEqual(whole);
    }
    // One byte per piece: every varint and every field split.
    expect(
      plain(
        decodeMutateRowsRequestParts(
          piecesOf(
            request,
            Array.from({ length: request.length }, (_, i) => i),
          ),
        ),
      ),
    ).toEqual(whole);
  });

  it('leaves values inside one piece as views of it, and copies only the entry that is split', () => {
    const big = Buffer.alloc(64 * 1024, 9);
    const bytes = encodeRows({
      tableName: TABLE,
      entries: [
        { rowKey: b('a'), mutations: [{ setCell: { familyName: 'f', value: big } }] },
        { rowKey: b('b'), mutations: [{ setCell: { familyName: 'f', value: big } }] },
      ],
    });
    // The first piece ends in the middle of the second entry.
    const pieces = piecesOf(bytes, [bytes.length - 1000]);
    const d = decodeMutateRowsRequestParts(pieces);
    const [first, second] = d.entries.map((e) => e.mutations[0]!);
    expect(first!.kind === 'setCell' && first!.value.buffer === pieces[0]!.buffer && Buffer.from(first!.value).equals(big)).toBe(true);
    expect(
      second!.kind === 'setCell' &&
        second!.value.buffer !== pieces[0]!.buffer &&
        second!.value.buffer !== pieces[1]!.buffer &&
        Buffer.from(second!.value).equals(big),
    ).toBe(true);
  });

  it('copies exactly the entries that a cut splits, wherever it falls', () => {
    const values = [1, 2, 3].map((i) => Buffer.alloc(40, i));
    const bytes = encodeRows({
      tableName: TABLE,
      entries: values.map((v, i) => ({ rowKey: b(`row${i}`), mutations: [{ setCell: { familyName: 'f', value: v } }] })),
    });
    // Where each entry's field (key and length included) lies in the joined request.
    const spans: [number, number][] = [];
    const r = protobuf.Reader.create(bytes);
    while (r.pos < r.len) {
      const start = r.pos;
      const key = r.uint32();
      r.skipType(key & 7);
      if (key >>> 3 === 2) spans.push([start, r.pos]);
    }
    expect(spans).toHaveLength(3);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const pieces = piecesOf(bytes, [cut]);
      const d = decodeMutateRowsRequestParts(pieces);
      d.entries.forEach((e, i) => {
        const m = e.mutations[0]!;
        if (m.kind !== 'setCell') throw new Error('expected a SetCell');
        expect(Buffer.from(m.value).equals(values[i]!)).toBe(true);
        const [start, end] = spans[i]!;
        const home = end <= cut ? pieces[0] : start >= cut ? pieces[1] : undefined;
        if (home !== undefined) expect(m.value.buffer).toBe(home.buffer);
        else expect(pieces.some((p) => p.buffer === m.value.buffer)).toBe(false);
      });
    }
  });

  it("gives the joined decode's result and error for unknown, non-length-delimited and malformed top-level fields", () => {
    const odd = [
      // An unknown varint field, a fixed64 and a fixed32 between entries.
      Buffer.concat([
        request.subarray(0, 2 + TABLE.length),
        Buffer.from(
          W.create()
            .uint32((90 << 3) | 0)
            .uint64(300)
            .uint32((91 << 3) | 1)
            .fixed64(1)
            .uint32((92 << 3) | 5)
            .fixed32(2)
            .finish(),
        ),
        request.subarray(2 + TABLE.length),
      ]),
      // A length past the end, a field number 0, wire type 7, a key varint of six bytes.
      request.subarray(0, request.length - 3),
      Buffer.concat([request, Buffer.from([0x00, 0x01])]),
      Buffer.concat([request, Buffer.from([0x0f])]),
      Buffer.concat([request, Buffer.from([0x92, 0x80, 0x80, 0x80, 0x80, 0x00])]),
    ];
    for (const bytes of odd) {
      const whole = plain(decodeMutateRowsRequest(bytes));
      for (let cut = 0; cut <= bytes.length; cut += 7)
        expect(plain(decodeMutateRowsRequestParts(piecesOf(bytes, [cut, cut + 3])))).toEqual(whole);
    }
    expect(decodeMutateRowsRequest(odd[0]!)).toMatchObject({ error: undefined, tableName: TABLE, appProfileId: 'prof' });
    expect(decodeMutateRowsRequest(odd[0]!).entries).toHaveLength(3);
    expect(decodeMutateRowsRequest(odd[1]!).error?.message).toMatch(/^Malformed MutateRowsRequest/);
    expect(decodeMutateRowsRequest(odd[2]!).error?.message).toMatch(/field number 0/);
  });

  it('allocates nothing for a split field whose declared length runs past the message', () => {
    // Six bytes in two pieces: an entry claiming 2 GiB, then 4 GiB - 1.
    for (const lengthVarint of [
      [0x80, 0x80, 0x80, 0x80, 0x08],
      [0xff, 0xff, 0xff, 0xff, 0x0f],
    ]) {
      const pieces = [Buffer.from([0x12]), Buffer.from(lengthVarint)];
      const before = process.memoryUsage().arrayBuffers;
      const d = decodeMutateRowsRequestParts(pieces);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
      expect(d.error?.message).toMatch(/^Malformed MutateRowsRequest/);
      expect(plain(d)).toEqual(plain(decodeMutateRowsRequest(Buffer.concat(pieces))));
    }
  });

  it('agrees with the joined decode on random requests cut at random places (property)', () => {
    const entry = fc.record({
      rowKey: fc.uint8Array({ maxLength: 12 }).map((u) => Buffer.from(u)),
      mutations: fc.array(fc.constantFrom(...every), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), fc.nat(), (entries, cuts, chop) => {
        const full = encodeRows({ tableName: TABLE, entries });
        // Sometimes a truncated request: the error must match too.
        const bytes = chop % 3 === 0 ? full.subarray(0, chop % (full.length + 1)) : full;
        const at = cuts.map((c) => c % (bytes.length + 1));
        expect(plain(decodeMutateRowsRequestParts(piecesOf(bytes, at)))).toEqual(plain(decodeMutateRowsRequest(bytes)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('decodeMutateRowRequest', () => {
  it('decodes the row, its mutations and the request fields in any field order', () => {
    const bytes = encodeRow({ tableName: TABLE, rowKey: b('row'), mutations: every, appProfileId: 'a', authorizedViewName: 'v' });
    const d = decodeMutateRowRequest(bytes);
    expect(d).toMatchObject({
      tableName: TABLE,
      key: 'row',
      appProfileId: 'a',
      authorizedViewName: 'v',
      sent: every.length,
      error: undefined,
    });
    expect(d.mutations).toEqual(viaLoader(encodeRows({ entries: [{ rowKey: b('row'), mutations: every }] }))[0]!.mutations);
    // Row key after the mutations on the wire.
    const W = protobuf.Writer;
    const m = mutateRow.requestSerialize({ mutations: [every[5]] }) as Buffer;
    const reordered = Buffer.concat([
      m,
      W.create()
        .uint32((2 << 3) | 2)
        .bytes(b('late'))
        .uint32((1 << 3) | 2)
        .string(TABLE)
        .finish(),
    ]);
    expect(decodeMutateRowRequest(reordered)).toMatchObject({ key: 'late', tableName: TABLE, mutations: [{ kind: 'deleteFromRow' }] });
  });

  it('reports a bad mutation and malformed bytes as errors', () => {
    expect(decodeMutateRowRequest(encodeRow({ tableName: TABLE, rowKey: b('r'), mutations: [{}] })).error?.code).toBe('InvalidArgument');
    expect(decodeMutateRowRequest(Buffer.from([0x1a, 0x7f])).error?.message).toMatch(/^Malformed MutateRowRequest/);
  });
});
