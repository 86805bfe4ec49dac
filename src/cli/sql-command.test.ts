import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unaryCall } from '../server/testing/raw-client.js';
import { type TestServer, startTestServer } from '../server/testing/test-server.js';
import { cellText, renderResult, sqlCommand } from './sql-command.js';
import { testIo } from './testing/test-io.js';

describe('tabletop sql', () => {
  let ts: TestServer;
  let server: string;
  beforeAll(async () => {
    ts = await startTestServer({ httpPort: 0 });
    server = new URL(ts.server.httpUrl!).host;
    const parent = 'projects/p/instances/i';
    await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent, tableId: 't', table: { columnFamilies: { cf: {} } } });
    for (const [key, value] of [
      ['a', 'apple'],
      ['b', 'b\x00\xff'],
    ] as const) {
      await unaryCall(ts.clients.data, 'MutateRow', {
        tableName: `${parent}/tables/t`,
        rowKey: Buffer.from(key),
        mutations: [
          {
            setCell: { familyName: 'cf', columnQualifier: Buffer.from('q'), timestampMicros: '1000', value: Buffer.from(value, 'latin1') },
          },
        ],
      });
    }
  });
  afterAll(() => ts.stop());

  it('prints a table of the result on the server’s only instance', async () => {
    const io = testIo();
    expect(await sqlCommand("SELECT _key, cf['q'] AS q, cf['none'] AS n FROM t", { server }, io.cli)).toBe(0);
    expect(io.out.join('\n').split('\n')).toEqual([
      '+-------+-----------+-------+',
      '| _key  | q         | n     |',
      '| BYTES | BYTES     | BYTES |',
      '+-------+-----------+-------+',
      '| a     | apple     | NULL  |',
      '| b     | b\\x00\\xff | NULL  |',
      '+-------+-----------+-------+',
      '2 rows; 2 rows scanned',
    ]);
  });

  it('--json prints the API answer; a SQL error exits 1 with its message', async () => {
    const io = testIo();
    expect(await sqlCommand("SELECT _key FROM t WHERE _key = 'a'", { server, json: true, project: 'p', instance: 'i' }, io.cli)).toBe(0);
    expect(JSON.parse(io.out.join('\n'))).toMatchObject({
      columns: [{ name: '_key', type: 'BYTES' }],
      rows: [[{ base64: 'YQ==', printable: 'a' }]],
    });
    const bad = testIo();
    expect(await sqlCommand('SELECT FROM t', { server }, bad.cli)).toBe(1);
    expect(bad.err.join('\n')).toMatch(/^tabletop sql: line 1, column \d+: /);
    const none = testIo();
    expect(await sqlCommand('SELECT 1', { server, project: 'nope' }, none.cli)).toBe(2);
    expect(none.err.join('\n')).toContain('no such instance');
  });

  it('cells: long values are cut, structures compact with bytes printable', () => {
    expect(cellText('x'.repeat(100))).toHaveLength(60);
    expect(cellText([{ base64: 'YQ==', printable: 'a' }, null])).toBe('["a",null]');
    expect(
      renderResult({ columns: [{ name: 'c', type: 'INT64' }], rows: [['1']], truncated: true, stats: { rowsScanned: 1, rowsReturned: 1 } }),
    ).toContain('1 row (truncated');
  });
});
