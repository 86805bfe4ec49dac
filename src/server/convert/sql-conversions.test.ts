import { crc32c } from '@node-rs/crc32';
import { describe, expect, it } from 'vitest';
import { SqlDate, SqlMap, SqlStruct, SqlTimestamp, type SqlType } from '../../sql/types.js';
import { checksummed, padFirstLength, resumeToken, resumePosition } from './execute-query-encoder.js';
import { sqlTypeFromProto, sqlTypeToProto } from './sql-type.js';
import { sqlParamsFromProto, sqlValueFromProto } from './sql-value.js';
import { ProtoRowsBatch } from './execute-query-encoder.js';

describe('SQL type conversion', () => {
  it('round-trips nested types; rejects a kindless type and a bad map key', () => {
    const t: SqlType = {
      kind: 'ARRAY',
      element: { kind: 'STRUCT', fields: [{ name: 'a', type: { kind: 'MAP', key: { kind: 'STRING' }, value: { kind: 'DATE' } } }] },
    };
    expect(sqlTypeFromProto(sqlTypeToProto(t), 't')).toEqual(t);
    expect(sqlTypeToProto({ kind: 'JSON' })).toEqual({ stringType: {} });
    expect(() => sqlTypeFromProto({}, 'param_types[x]')).toThrow(/param_types\[x\]: the type has no kind/);
    expect(() => sqlTypeFromProto({ mapType: { keyType: { boolType: {} }, valueType: { bytesType: {} } } }, 'p')).toThrow(/MAP key/);
  });
});

describe('SQL param conversion', () => {
  it('reads each kind by its declared type', () => {
    expect(sqlValueFromProto({ intValue: '-9223372036854775808' }, { kind: 'INT64' }, 'p')).toBe(-(2n ** 63n));
    expect(sqlValueFromProto({ floatValue: 0.1 }, { kind: 'FLOAT32' }, 'p')).toBe(Math.fround(0.1));
    expect(sqlValueFromProto({ timestampValue: { seconds: '-1', nanos: 500_000_000 } }, { kind: 'TIMESTAMP' }, 'p')).toEqual(
      new SqlTimestamp(-500_000n),
    );
    expect(sqlValueFromProto({ dateValue: { year: 1969, month: 12, day: 31 } }, { kind: 'DATE' }, 'p')).toEqual(new SqlDate(-1));
    expect(sqlValueFromProto({ dateValue: { year: 1, month: 1, day: 1 } }, { kind: 'DATE' }, 'p')).toEqual(new SqlDate(-719162));
    expect(() => sqlValueFromProto({ dateValue: { year: 2023, month: 2, day: 29 } }, { kind: 'DATE' }, 'p')).toThrow(/not a date/);
    expect(
      sqlValueFromProto(
        { arrayValue: { values: [{ bytesValue: Buffer.from('a') }, {}] } },
        { kind: 'ARRAY', element: { kind: 'BYTES' } },
        'p',
      ),
    ).toEqual([new Uint8Array([97]), null]);
    const map: SqlType = { kind: 'MAP', key: { kind: 'STRING' }, value: { kind: 'INT64' } };
    expect(
      sqlValueFromProto({ arrayValue: { values: [{ arrayValue: { values: [{ stringValue: 'k' }, { intValue: '1' }] } }] } }, map, 'p'),
    ).toEqual(new SqlMap([['k', 1n]]));
    const st: SqlType = { kind: 'STRUCT', fields: [{ name: 'a', type: { kind: 'BOOL' } }] };
    expect(sqlValueFromProto({ arrayValue: { values: [{ boolValue: true }] } }, st, 'p')).toEqual(new SqlStruct([true]));
    expect(() => sqlValueFromProto({ stringValue: '1' }, { kind: 'INT64' }, 'params[x]')).toThrow(
      /params\[x\]: a INT64 value needs int_value, got string_value/,
    );
  });

  it('checks the outer type against the declared one', () => {
    const declared = new Map<string, SqlType>([['k', { kind: 'BYTES' }]]);
    expect(sqlParamsFromProto({ k: { type: { bytesType: {} }, bytesValue: Buffer.from('x') } }, declared).get('k')).toEqual(
      new Uint8Array([120]),
    );
    expect(() => sqlParamsFromProto({ k: { type: { stringType: {} }, stringValue: 'x' } }, declared)).toThrow(
      /prepared with @k of type BYTES, got STRING/,
    );
  });
});

describe('result batches', () => {
  it('a zero CRC is avoided by a longer (still valid) length prefix', () => {
    const batch = new ProtoRowsBatch([{ kind: 'STRING' }]);
    batch.add(['hello']);
    const bytes = batch.take();
    let calls = 0;
    const { bytes: out, crc } = checksummed(bytes, (b) => (calls++ === 0 ? 0 : crc32c(b)));
    expect(crc).not.toBe(0);
    expect(out).toEqual(padFirstLength(bytes));
    expect(out.length).toBe(bytes.length + 1);
    expect([...out.subarray(0, 4)]).toEqual([0x12, bytes[1]! | 0x80, 0x00, bytes[2]]);
  });

  it('resume tokens name the rows released and the prepared query', () => {
    const t = resumeToken(Buffer.from('q1'), 1234);
    expect(resumePosition(Buffer.from('q1'), t)).toEqual({ rows: 1234 });
    const c = resumeToken(Buffer.from('q1'), 1234, { key: Buffer.from('row\x00\xff'), base: 1200 });
    expect(resumePosition(Buffer.from('q1'), c)).toEqual({
      rows: 1234,
      checkpoint: { key: new Uint8Array(Buffer.from('row\x00\xff')), base: 1200 },
    });
    const empty = resumeToken(Buffer.from('q1'), 5, { key: new Uint8Array(), base: 5 });
    expect(resumePosition(Buffer.from('q1'), empty)).toEqual({ rows: 5, checkpoint: { key: new Uint8Array(), base: 5 } });
    expect(() => resumePosition(Buffer.from('q2'), c)).toThrow(/another prepared query/);
    expect(() => resumePosition(Buffer.from('q2'), t)).toThrow(/another prepared query/);
    expect(() => resumePosition(Buffer.from('q1'), Buffer.from('x'))).toThrow(/not one this server sent/);
  });
});
