import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Target, startEmulator, startTabletop } from '../harness/targets.js';
import { nodeClient } from '../harness/node-client.js';
import { adminCall } from '../harness/raw.js';
import { createTable, fillTable, readTable, runTabletop, tablePath } from './tables.js';

/**
 * `tabletop copy` as users run it: the built CLI in its own process between real servers (two tabletops, and
 * Google's emulator to tabletop), killed with SIGKILL part-way and run again, then both tables read row by row
 * through the official client.
 */
const ROWS = 3000;

let work: string;
let source: Target;
let dest: Target;
let emulator: Target;
let sourceClient: Bigtable;
let destClient: Bigtable;
let emulatorClient: Bigtable;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'tabletop-copy-'));
  // Small tablets, so that the source's SampleRowKeys gives several ranges.
  [source, dest, emulator] = await Promise.all([startTabletop({ args: ['--split-size', '32KiB'] }), startTabletop(), startEmulator()]);
  sourceClient = nodeClient(source);
  destClient = nodeClient(dest);
  emulatorClient = nodeClient(emulator);
  await Promise.all([createTable(sourceClient, 'src'), createTable(emulatorClient, 'src')]);
  await Promise.all([fillTable(sourceClient, 'src', ROWS), fillTable(emulatorClient, 'src', ROWS)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([sourceClient?.close(), destClient?.close(), emulatorClient?.close()]);
  await Promise.all([source?.stop(), dest?.stop(), emulator?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

/** Waits until the source splits into at least `n` tablets (the server splits every second). */
async function waitForRanges(n: number): Promise<number> {
  const table = sourceClient.instance('i').table('src');
  for (let i = 0; i < 100; i++) {
    const [keys] = await table.sampleRowKeys();
    if (keys.length >= n) return keys.length;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the source did not split into ${n} tablets`);
}

/**
 * Copies at 1,500 rows a second, one range at a time, and kills the copy (SIGKILL) once its progress shows rows
 * written and its state file `killAfterRanges` finished ranges.
 */
function copyInterrupted(from: string, to: string, state: string, killAfterRanges: number) {
  let killed = false;
  return runTabletop(['copy', '--from', from, '--to', to, '--state', state, '--parallel', '1', '--max-rows-per-second', '1500'], {
    cwd: work,
    onStderr: (soFar, kill) => {
      if (killed || !/copy: \[[#-]+\] \d+\/\d+ ranges, [1-9][\d,]* rows/.test(soFar) || !existsSync(state)) return;
      const done = (JSON.parse(readFileSync(state, 'utf8')) as { done: number[] }).done.length;
      if (done < killAfterRanges) return;
      killed = true;
      kill();
    },
  });
}

describe('tabletop copy', () => {
  it('copies between two tabletop servers, resumes after a kill -9 and ends equal, row by row', async () => {
    const ranges = await waitForRanges(3);
    const from = `${source.address}/${tablePath('src')}`;
    const to = `${dest.address}/${tablePath('copy1')}`;
    const state = path.join(work, 'copy1.json');
    const first = await copyInterrupted(from, to, state, 1);
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const done = (JSON.parse(readFileSync(state, 'utf8')) as { done: number[]; ranges: unknown[] }).done.length;
    expect(done).toBeGreaterThanOrEqual(1);
    const partial = await readTable(destClient, 'copy1');
    expect(partial.size).toBeGreaterThan(0);
    expect(partial.size).toBeLessThan(ROWS);

    const second = await runTabletop(['copy', '--from', from, '--to', to, '--state', state], { cwd: work });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`resuming (${done} done before`);
    expect(second.stdout).toMatch(new RegExp(`; ${done} were done before the resume`));
    expect(second.stdout).toContain('verified: the same rows, cells and checksum on both sides');
    expect(second.stdout).toMatch(/source: +3,000 rows, 9,000 cells, checksum [0-9a-f]{16}/);
    expect(existsSync(state)).toBe(false);
    expect(await readTable(destClient, 'copy1')).toEqual(await readTable(sourceClient, 'src'));

    // The destination was made with the source's families (GC rules) and splits.
    const [families] = await destClient.instance('i').table('copy1').getFamilies();
    expect(Object.fromEntries(families.map((f) => [f.id, f.metadata?.gcRule]))).toEqual({
      cf1: expect.objectContaining({ maxNumVersions: 3 }),
      cf2: expect.objectContaining({ maxAge: expect.objectContaining({ seconds: String(86_400 * 365 * 100) }) }),
    });
    expect(ranges).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it("copies from Google's emulator to tabletop, resumes after a kill -9 and ends equal, row by row", async () => {
    const from = `${emulator.address}/${tablePath('src')}`;
    const to = `${dest.address}/${tablePath('copy2')}`;
    const first = await copyInterrupted(from, to, path.join(work, 'copy2.json'), 0);
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const partial = await readTable(destClient, 'copy2');
    expect(partial.size).toBeGreaterThan(0);
    expect(partial.size).toBeLessThan(ROWS);
    const second = await runTabletop(['copy', '--from', from, '--to', to, '--state', path.join(work, 'copy2.json')], { cwd: work });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('resuming');
    expect(second.stdout).toContain('verified');
    expect(await readTable(destClient, 'copy2')).toEqual(await readTable(emulatorClient, 'src'));
  }, 120_000);

  it('keeps its state in the directory it runs in by default, and a clean copy leaves none', async () => {
    const run = await runTabletop(
      ['copy', '--from', `${source.address}/${tablePath('src')}`, '--to', `${dest.address}/${tablePath('copy3')}`],
      {
        cwd: work,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/state in tabletop-copy-[0-9a-f]{12}\.json/);
    expect(readdirSync(work).filter((f) => f.startsWith('tabletop-copy-'))).toEqual([]);
    expect(await readTable(destClient, 'copy3')).toEqual(await readTable(sourceClient, 'src'));
  }, 60_000);

  it('reports a difference when the destination holds more than the source', async () => {
    const extra = await runTabletop(
      ['copy', '--from', `${source.address}/${tablePath('src')}`, '--to', `${dest.address}/${tablePath('copy4')}`, '--no-verify'],
      { cwd: work },
    );
    expect(extra.code, extra.stderr).toBe(0);
    await fillTable(destClient, 'copy4', 1, 3); // rewrites row 0 with other values: cf1 versions differ
    await destClient
      .instance('i')
      .table('copy4')
      .insert([{ key: 'zzz', data: { cf1: { q: 'more' } } }]);
    const again = await runTabletop(
      ['copy', '--from', `${source.address}/${tablePath('src')}`, '--to', `${dest.address}/${tablePath('copy4')}`],
      { cwd: work },
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the tables differ');
    expect(again.stdout).toMatch(/destination: +3,001 rows/);
  }, 60_000);

  it('copies aggregate families with their value type, twice without adding twice', async () => {
    const sum = { aggregateType: { inputType: { int64Type: { encoding: { bigEndianBytes: {} } } }, sum: {} } };
    await adminCall(sourceClient, 'BigtableTableAdminClient', 'createTable', {
      parent: 'projects/p/instances/i',
      tableId: 'agg',
      table: { columnFamilies: { sum: { valueType: sum }, plain: {} } },
    });
    const add = (key: string, value: number) => ({
      rowKey: Buffer.from(key),
      mutations: [
        {
          addToCell: {
            familyName: 'sum',
            columnQualifier: { rawValue: Buffer.from('c') },
            timestamp: { rawTimestampMicros: 1000 },
            input: { intValue: value },
          },
        },
      ],
    });
    await sourceClient
      .instance('i')
      .table('agg')
      .mutate([add('r1', 5), add('r2', -2)], { rawMutation: true });
    await sourceClient
      .instance('i')
      .table('agg')
      .mutate([add('r1', 7)], { rawMutation: true });
    const args = ['copy', '--from', `${source.address}/${tablePath('agg')}`, '--to', `${dest.address}/${tablePath('agg')}`];
    for (let i = 0; i < 2; i++) {
      const run = await runTabletop(args, { cwd: work });
      expect(run.code, run.stderr).toBe(0);
    }
    const rows = await readTable(destClient, 'agg');
    expect(rows).toEqual(await readTable(sourceClient, 'agg'));
    const be = (n: number): string => {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(n));
      return b.toString('base64');
    };
    expect(rows.get(Buffer.from('r1').toString('base64'))).toEqual([`sum/${Buffer.from('c').toString('base64')}/1000/${be(12)}`]);
    const [families] = await destClient.instance('i').table('agg').getFamilies();
    expect(families.find((f) => f.id === 'sum')?.metadata?.valueType).toBeTruthy();
  }, 60_000);

  it('refuses a bad table spec with a usage error', async () => {
    const noPort = await runTabletop([
      'copy',
      '--from',
      'nohost/projects/p/instances/i/tables/t',
      '--to',
      `${dest.address}/${tablePath('x')}`,
    ]);
    expect(noPort.code).toBe(2);
    expect(noPort.stderr).toContain('"nohost/projects/p/instances/i/tables/t": the endpoint must be HOST:PORT');
    const noTable = await runTabletop(['copy', '--from', `${dest.address}/projects/p`, '--to', `${dest.address}/${tablePath('x')}`]);
    expect(noTable.code).toBe(2);
    expect(noTable.stderr).toContain('give a table as [HOST:PORT/]projects/P/instances/I/tables/T');
  });
});
