import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unaryCall } from '../server/testing/raw-client.js';
import { type TestServer, startTestServer } from '../server/testing/test-server.js';
import { runCli } from './cli.js';
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

  it('--param (repeatable, through the command line) gives typed @parameters', async () => {
    const io = testIo();
    const query = "SELECT _key, cf['q'] AS q, @n + 1 AS n, @at AS ts FROM t WHERE STARTS_WITH(_key, @prefix) OR _key = @raw";
    const args = ['sql', query, '--server', server, '--json'];
    const params = [
      '--param',
      'prefix=BYTES:a',
      '--param',
      'raw=BYTES:base64:Yg==',
      '--param',
      'n=INT64:41',
      '--param',
      'at=TIMESTAMP:2024-06-01 12:00:00',
    ];
    expect(await runCli([...args, ...params], io.cli), io.err.join('\n')).toBe(0);
    const answer = JSON.parse(io.out.join('\n')) as { rows: unknown[][] };
    expect(answer.rows).toEqual([
      [{ base64: 'YQ==', printable: 'a' }, { base64: 'YXBwbGU=', printable: 'apple' }, '42', '2024-06-01T12:00:00.000000Z'],
      [{ base64: 'Yg==', printable: 'b' }, { base64: 'YgD/', printable: 'b\\x00\\xff' }, '42', '2024-06-01T12:00:00.000000Z'],
    ]);
    const table = testIo();
    expect(await runCli(['sql', 'SELECT @ids AS ids', '--server', server, '--param', 'ids=ARRAY<INT64>:[1,"2",null]'], table.cli)).toBe(0);
    expect(table.out.join('\n')).toContain('| ["1","2",null] |');
  });

  it('a bad --param is a command-line error naming it, before anything is sent', async () => {
    for (const [flags, message] of [
      [
        ['n=INT64:x'],
        'tabletop sql: --param n=INT64:x: "x" is not an INT64 (a whole number from -9223372036854775808 to 9223372036854775807)',
      ],
      [
        ['n'],
        'tabletop sql: --param n: write it name=TYPE:value, e.g. --param id=STRING:user1, --param n=INT64:3, --param k=BYTES:base64:AAEC',
      ],
      [['k=BYTES:base64:*'], 'tabletop sql: --param k=BYTES:base64:*: "*" is not base64 (e.g. AAEC/w==)'],
      [['n=INT64:1', '@n=INT64:2'], 'tabletop sql: --param @n=INT64:2: @n is given twice'],
      [
        ['n=NUMERIC:1'],
        'tabletop sql: --param n=NUMERIC:1: "NUMERIC" is not a parameter type: one of INT64, FLOAT64, FLOAT32, BOOL, STRING, BYTES, TIMESTAMP, DATE, or ARRAY<...> of one',
      ],
    ] as const) {
      const io = testIo();
      // An address nothing listens on: the check comes first.
      expect(await sqlCommand('SELECT @n', { server: 'localhost:1', param: flags }, io.cli)).toBe(2);
      expect(io.err).toEqual([message]);
    }
    // A parameter the query does not declare the type of as given is the server's error (exit 1).
    const io = testIo();
    expect(await sqlCommand('SELECT @n + 1', { server, param: ['n=STRING:x'] }, io.cli)).toBe(1);
    expect(io.err.join('\n')).toMatch(/^tabletop sql: line 1, column \d+: /);
  });

  it('cells: long values are cut, structures compact with bytes printable', () => {
    expect(cellText('x'.repeat(100))).toHaveLength(60);
    expect(cellText([{ base64: 'YQ==', printable: 'a' }, null])).toBe('["a",null]');
    expect(
      renderResult({ columns: [{ name: 'c', type: 'INT64' }], rows: [['1']], truncated: true, stats: { rowsScanned: 1, rowsReturned: 1 } }),
    ).toContain('1 row (truncated');
  });
});
