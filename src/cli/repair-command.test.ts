import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULL_RANGE } from '../model/key-range.js';
import { createNodeFileSystem } from '../storage/fs/node-fs.js';
import { lockDataDir } from '../storage/lsm/data-dir-lock.js';
import { openDiskEngine } from '../storage/lsm/disk-engine.js';
import { runCli } from './cli.js';
import { testIo } from './testing/test-io.js';

const value = (i: number): string => `value-${i}-here`;

/** A data directory whose commit log holds ten acknowledged rows, with a byte of the fifth flipped. */
async function damagedDataDir(): Promise<{ dir: string; wal: string; offset: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tabletop-repair-'));
  const engine = await openDiskEngine({ fs: createNodeFileSystem('/'), dir, manualCompaction: true });
  const store = await engine.openStore('t');
  for (let i = 0; i < 10; i++)
    await store.write([{ key: `k${i}`, ops: [{ kind: 'put', family: 'f', qualifier: 'q', timestamp: 1, value: Buffer.from(value(i)) }] }]);
  await engine.close(); // without a flush: the rows are in the commit log only
  const name = readdirSync(join(dir, 'wal')).find((n) => readFileSync(join(dir, 'wal', n)).includes(value(4)))!;
  const wal = join(dir, 'wal', name);
  const data = readFileSync(wal);
  const offset = data.indexOf(value(4));
  data[offset] = (data[offset] ?? 0) ^ 0xff;
  writeFileSync(wal, data);
  return { dir, wal, offset };
}

async function keys(dir: string): Promise<string[]> {
  const engine = await openDiskEngine({ fs: createNodeFileSystem('/'), dir, manualCompaction: true });
  try {
    const c = (await engine.openStore('t')).scan({ range: FULL_RANGE });
    const out: string[] = [];
    for (let r = await c.next(); r !== undefined; r = await c.next()) out.push(r.key);
    c.close();
    return out;
  } finally {
    await engine.close();
  }
}

describe('tabletop repair', () => {
  it('starts a data directory past damage in the middle of its commit log, losing only the damaged record, and keeps the logs as they were', async () => {
    const { dir, wal } = await damagedDataDir();
    // The server refuses the directory, and says what to do.
    const serve = testIo();
    expect(await runCli(['serve', '--data-dir', dir, '--port', '0', '--http-port', '0'], serve.cli)).not.toBe(0);
    expect(serve.err.join('\n')).toMatch(/corrupt at offset \d+ .*`tabletop repair` starts past it/);

    const t = testIo();
    expect(await runCli(['repair', '--data-dir', dir], t.cli)).toBe(0);
    const out = t.out.join('\n');
    expect(out).toMatch(
      new RegExp(`skipped damage in the middle of the commit log: .* of commit log ${wal} from offset [\\d,]+; the writes in it are lost`),
    );
    expect(out).toMatch(
      /repaired .*: skipped 1 damaged stretch of commit log .*; the writes in them are lost; 9 commit-log records read back \(9 rows/,
    );
    const backup = /kept in (\S+) /.exec(out)?.[1];
    expect(backup !== undefined && existsSync(join(backup, 'wal', wal.split('/').pop()!))).toBe(true);
    expect(readFileSync(join(backup!, 'wal', wal.split('/').pop()!)).includes('value-4-h')).toBe(false); // the damaged copy, as it was
    expect(await keys(dir)).toEqual(['k0', 'k1', 'k2', 'k3', 'k5', 'k6', 'k7', 'k8', 'k9']);

    // Once repaired, there is nothing more to repair, and no copy is left behind.
    const again = testIo();
    expect(await runCli(['repair', '--data-dir', dir], again.cli)).toBe(0);
    expect(again.out.join('\n')).toMatch(/nothing to repair in .*: the commit logs are whole/);
    expect(readdirSync(dir).filter((n) => n.startsWith('repair-'))).toHaveLength(1);
  });

  it('refuses a directory a server has open, and one that holds no database', async () => {
    const { dir } = await damagedDataDir();
    const server = lockDataDir(dir); // as a running server holds it
    try {
      const t = testIo();
      expect(await runCli(['repair', '--data-dir', dir], t.cli)).toBe(1);
      expect(t.err.join('\n')).toMatch(/tabletop repair: .*(locked|in use|another)/i);
    } finally {
      server.release();
    }
    const empty = testIo();
    expect(await runCli(['repair', '--data-dir', mkdtempSync(join(tmpdir(), 'tabletop-repair-'))], empty.cli)).toBe(1);
    expect(empty.err.join('\n')).toMatch(/holds no tabletop database/);
  });
});
