import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Target, startTabletop } from '../harness/targets.js';
import { nodeClient } from '../harness/node-client.js';
import { cellsOf, createTable, fillTable, readTable, runTabletop, tablePath } from './tables.js';

/**
 * `tabletop export` then `tabletop import` as users run them (the built CLI, a real server): every cell, timestamp
 * and family comes back, in each format, to a file and through stdout/stdin; importing twice changes nothing; bad
 * lines are reported by number and skipped, or stop the import with --strict.
 */
const ROWS = 700;
const CELLS = cellsOf(ROWS).toLocaleString('en-US');

let work: string;
let server: Target;
let client: Bigtable;
const spec = (table: string): string => `${server.address}/${tablePath(table)}`;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'tabletop-export-'));
  server = await startTabletop();
  client = nodeClient(server);
  await createTable(client, 'src');
  await fillTable(client, 'src', ROWS);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('tabletop export and import', () => {
  for (const format of ['jsonl', 'csv', 'seqfile'] as const) {
    it(`round-trips every cell, timestamp and family through ${format}, and importing twice changes nothing`, async () => {
      const file = path.join(work, `src.${format}`);
      const exported = await runTabletop(['export', spec('src'), '--output', file]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toContain(`${ROWS} rows, ${CELLS} cells`);
      expect(exported.stderr).toContain(`as ${format}`);
      const target = `back-${format}`;
      await createTable(client, target);
      for (let i = 0; i < 2; i++) {
        const imported = await runTabletop(['import', file, spec(target)]);
        expect(imported.code, imported.stderr).toBe(0);
        expect(imported.stderr).toContain(`${ROWS} rows, ${CELLS} cells`);
      }
      expect(await readTable(client, target)).toEqual(await readTable(client, 'src'));
    }, 60_000);
  }

  it('writes to stdout and reads from stdin (--format given)', async () => {
    const exported = await runTabletop(['export', spec('src'), '--format', 'seqfile']);
    expect(exported.code, exported.stderr).toBe(0);
    await createTable(client, 'piped');
    const imported = await runTabletop(['import', '-', spec('piped'), '--format', 'seqfile'], { stdin: exported.stdoutBytes });
    expect(imported.code, imported.stderr).toBe(0);
    expect(await readTable(client, 'piped')).toEqual(await readTable(client, 'src'));
    const jsonl = await runTabletop(['export', spec('src')]);
    expect(jsonl.stdout.split('\n')[0]).toMatch(
      /^\{"key":"b64:cm93MDAwMDAwAP8A","family":"cf[12]","qualifier":"[^"]+","timestamp":"\d+","value":"[^"]+"\}$/,
    );
    await createTable(client, 'piped-jsonl');
    const back = await runTabletop(['import', '-', spec('piped-jsonl')], { stdin: Buffer.from(jsonl.stdout, 'utf8') });
    expect(back.code, back.stderr).toBe(0);
    expect(await readTable(client, 'piped-jsonl')).toEqual(await readTable(client, 'src'));
  }, 60_000);

  it('reports bad lines with their numbers and goes on; --strict stops at the first', async () => {
    await createTable(client, 'bad');
    const file = path.join(work, 'bad.csv');
    writeFileSync(
      file,
      [
        'key,family,qualifier,timestamp,value',
        'a,cf1,q,1000,one',
        'b,cf1,q,not-a-number,two',
        'c,cf1,q,3000',
        'd,cf1,"q,with comma",4000,"a ""quoted"" value"',
        'e,nofamily,q,5000,x',
        'f,cf2,b64:AP8=,6000,b64:AAEC',
        '"g,cf1,q,7000,x',
      ].join('\n') + '\n',
    );
    const run = await runTabletop(['import', file, spec('bad')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('bad.csv: line 3: bad timestamp "not-a-number"');
    expect(run.stderr).toContain('bad.csv: line 4: 4 fields, expected 5');
    expect(run.stderr).toContain('bad.csv: line 6: refused by the server');
    expect(run.stderr).toContain('bad.csv: line 8: a quoted field is not closed');
    expect(run.stderr).toContain('4 bad lines (or rows refused) skipped');
    const rows = await readTable(client, 'bad');
    expect([...rows.keys()].map((k) => Buffer.from(k, 'base64').toString())).toEqual(['a', 'd', 'f']);
    expect(rows.get(Buffer.from('d').toString('base64'))).toEqual([
      `cf1/${Buffer.from('q,with comma').toString('base64')}/4000/${Buffer.from('a "quoted" value').toString('base64')}`,
    ]);
    expect(rows.get(Buffer.from('f').toString('base64'))).toEqual(['cf2/AP8=/6000/AAEC']);

    const missing = await runTabletop(['import', path.join(work, 'no-such.csv'), spec('bad')]);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, `tabletop import: ${path.join(work, 'no-such.csv')}: no such file`]);

    await createTable(client, 'strict');
    const strict = await runTabletop(['import', file, spec('strict'), '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('line 3: bad timestamp');
    expect(strict.stderr).not.toContain('line 4');
    expect(strict.stderr).toContain('stopped at the first bad record (--strict)');
    expect([...(await readTable(client, 'strict')).keys()].map((k) => Buffer.from(k, 'base64').toString())).toEqual(['a']);
  }, 60_000);

  it('exports a table larger than its heap', async () => {
    // 60,000 rows of 3 cells of 1 KiB: 180 MiB of values through a process whose heap may not pass 96 MiB.
    await client.instance('i').createTable('big', { families: ['cf'] });
    const value = Buffer.alloc(1024, 'v');
    for (let from = 0; from < 60_000; from += 2000) {
      const rows = [];
      for (let i = from; i < from + 2000; i++)
        rows.push({ key: `k${String(i).padStart(6, '0')}`, data: { cf: { a: value, b: value, c: value } } });
      await client.instance('i').table('big').insert(rows);
    }
    const file = path.join(work, 'big.seqfile');
    const run = await runTabletop(['export', spec('big'), '--output', file], { nodeArgs: ['--max-old-space-size=96'] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('60,000 rows, 180,000 cells');
    expect(statSync(file).size).toBeGreaterThan(180 * 1024 * 1024);
  }, 120_000);

  it('names the record and byte offset of a damaged seqfile', async () => {
    const whole = readFileSync(path.join(work, 'src.seqfile'));
    const file = path.join(work, 'cut.seqfile');
    writeFileSync(file, whole.subarray(0, whole.length - 3));
    await createTable(client, 'cut');
    const run = await runTabletop(['import', file, spec('cut')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`cut\\.seqfile: record ${cellsOf(ROWS)} \\(byte \\d+\\): the file ends inside it`));
    expect((await readTable(client, 'cut')).size).toBe(ROWS);
  }, 60_000);
});
