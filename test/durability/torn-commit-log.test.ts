import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { nodeClient } from '../harness/node-client.js';
import { TABLETOP_MAIN } from '../harness/targets.js';
import { appendZeros, cutTail, flipBytes, zeroBytes } from './damage.js';
import { readDataDir, walFiles, walRecords } from './data-dir.js';
import { type DurableServer, startDurable } from './durable-server.js';

/**
 * The commit log after kill -9: its last record may be torn (cut short, or
 * followed by zeros where the file system extended the file but the data
 * never landed). Recovery must drop only that record and keep every earlier
 * acknowledged write. Damage in the middle of the log, with valid records
 * after it, is corruption: the server must refuse to start rather than
 * silently drop acknowledged writes, and must leave the log as it was.
 * (Each write here is acknowledged before the next is sent, so each is its
 * own group, and the sync marker of every later group proves the earlier
 * ones were synced: docs/format/commit-log.md.)
 * Zeros after the manifest's last record are a torn tail too.
 *
 * The log writer extends a new log file with zeros ahead of its writes
 * (docs/format/commit-log.md), so the last record is followed by zeros: a
 * torn last record is either cut short at the end of the file (a file that
 * was not extended) or partly zeros inside the extended file.
 *
 * The memtable is left at its default size (64 MiB), so nothing is flushed
 * before the kill and every write of a round is only in the commit log.
 */
describe('torn commit-log and manifest tails after kill -9', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tabletop-torn-'));
  let server: DurableServer | undefined;
  let client: Bigtable | undefined;
  const expected = new Map<string, Buffer>();
  let round = 0;

  const table = (): Table => {
    if (client === undefined) throw new Error('no client');
    return client.instance('i').table('t');
  };

  const start = async (): Promise<void> => {
    server = await startDurable({ dataDir });
    client = nodeClient(server);
  };

  const put = async (key: string): Promise<Buffer> => {
    const value = randomBytes(200 + Math.floor(Math.random() * 300));
    await table().insert([{ key, data: { cf: { q: { value, timestamp: new Date(1000) } } } }]);
    return value;
  };

  /**
   * Writes acknowledged rows one by one, then a last row `tail` (also
   * acknowledged), then kills the server. Returns the commit log holding
   * the round and the length of its last record (the tail's).
   */
  const roundThenKill = async (): Promise<{
    log: string;
    tailKey: string;
    tailValue: Buffer;
    lastRecordBytes: number;
    validBytes: number;
  }> => {
    round++;
    for (let i = 0; i < 40; i++) {
      const key = `r${round}-${String(i).padStart(3, '0')}`;
      expected.set(key, await put(key));
    }
    const tailKey = `r${round}-tail`;
    const tailValue = await put(tailKey);
    void client?.close();
    await server?.kill9();
    client = undefined;
    server = undefined;
    const log = walFiles(dataDir).at(-1);
    if (log === undefined) throw new Error(`no commit log in ${dataDir}`);
    const { records, validBytes, size, headerBytes } = walRecords(log);
    const last = records.at(-1);
    // Past the last whole record, only the zeros the log was extended with.
    expect(size, `${log} should be extended ahead of its last record`).toBeGreaterThan(validBytes);
    expect(
      readFileSync(log)
        .subarray(validBytes)
        .every((b) => b === 0),
      `${log} should hold only zeros after its last record`,
    ).toBe(true);
    expect(last?.includes(Buffer.from(tailKey)), `the last record of ${log} should be the write of ${tailKey}`).toBe(true);
    return { log, tailKey, tailValue, lastRecordBytes: (last?.length ?? 0) + headerBytes, validBytes };
  };

  const readAll = async (): Promise<Map<string, Buffer>> => {
    const [rows] = await table().getRows({ decode: false });
    return new Map(rows.map((r) => [String(r.id), Buffer.from((r.data as { cf: { q: { value: Buffer }[] } }).cf.q[0]!.value)]));
  };

  const expectAllAcknowledged = async (): Promise<Map<string, Buffer>> => {
    const rows = await readAll();
    const missing = [...expected.keys()].filter((k) => !rows.get(k)?.equals(expected.get(k)!));
    expect(missing, 'acknowledged rows missing or changed after recovery').toEqual([]);
    return rows;
  };

  beforeAll(async () => {
    await start();
    await table().create({ families: ['cf'] });
  });

  afterAll(async () => {
    void client?.close();
    await server?.kill9();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('drops a last record cut short by a few bytes and keeps everything before it', async () => {
    const { log, tailKey, validBytes } = await roundThenKill();
    // The file ends 3 bytes before the end of the last record.
    cutTail(log, statSync(log).size - (validBytes - 3));
    await start();
    // Said in the log, with the file, the offset and the bytes dropped.
    expect(server?.output()).toMatch(
      new RegExp(
        `WARN +dropped a damaged last record: .* of commit log \\S*${path.basename(log)} from offset [\\d,]+, with nothing intact after it`,
      ),
    );
    const rows = await expectAllAcknowledged();
    // The cut record is gone as a whole; it was the only place the tail row lived.
    expect(rows.has(tailKey)).toBe(false);
    expect(rows.size).toBe(expected.size);
  });

  it('drops a last record of which only part of the header remains', async () => {
    const { log, tailKey, lastRecordBytes, validBytes } = await roundThenKill();
    // Inside the extended file: all but 5 bytes of the record's header never landed.
    zeroBytes(log, validBytes - lastRecordBytes + 5, lastRecordBytes - 5);
    await start();
    const rows = await expectAllAcknowledged();
    expect(rows.has(tailKey)).toBe(false);
  });

  it('ignores zeros after the last record and keeps every record', async () => {
    const { log, tailKey, tailValue } = await roundThenKill();
    appendZeros(log, 4096);
    await start();
    const rows = await expectAllAcknowledged();
    expect(rows.get(tailKey)?.equals(tailValue)).toBe(true);
    expected.set(tailKey, tailValue);
  });

  it('ignores zeros after the last record of the manifest', async () => {
    const { tailKey, tailValue } = await roundThenKill();
    const manifest = path.join(dataDir, readFileSync(path.join(dataDir, 'CURRENT'), 'latin1').trim());
    const before = readDataDir(dataDir).manifest;
    appendZeros(manifest, 512);
    await start();
    const rows = await expectAllAcknowledged();
    expect(rows.get(tailKey)?.equals(tailValue)).toBe(true);
    expected.set(tailKey, tailValue);
    await client?.close();
    await server?.stop();
    client = undefined;
    server = undefined;
    // The restarted server wrote a new manifest holding at least what the old one did.
    const after = readDataDir(dataDir).manifest;
    expect(after.nextFileNumber).toBeGreaterThan(before.nextFileNumber);
    expect([...after.stores.keys()]).toEqual([...before.stores.keys()]);
    await start();
  });

  it('refuses to start on damage in the middle of the log, and starts with everything once the damage is undone', async () => {
    const { log, tailKey, tailValue } = await roundThenKill();
    // A byte inside the first record's payload (past the first group's 18-byte sync marker and the
    // record's 12-byte header): many groups follow it, whose sync markers say it had been synced.
    flipBytes(log, 40, 1);
    const failed = await startDurable({ dataDir }).then(
      (s): DurableServer | Error => s,
      (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
    );
    if (!(failed instanceof Error)) {
      server = failed;
      throw new Error('the server started on a commit log that is corrupt in the middle');
    }
    expect(failed.message).toContain(path.basename(log));
    expect(failed.message).toMatch(/corrupt/i);
    // Nothing was thrown away: with the byte restored, every acknowledged write is back.
    flipBytes(log, 40, 1);
    await start();
    const rows = await expectAllAcknowledged();
    expect(rows.get(tailKey)?.equals(tailValue)).toBe(true);
    expected.set(tailKey, tailValue);
  });

  it('tabletop repair starts past damage in the middle of the log, losing only the damaged record', async () => {
    const { log, tailKey, tailValue } = await roundThenKill();
    flipBytes(log, 40, 1); // inside the round's first record, as above
    const repair = spawnSync(process.execPath, [TABLETOP_MAIN, 'repair', '--data-dir', dataDir], { encoding: 'utf8' });
    expect(repair.status, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(
      new RegExp(`skipped damage in the middle of the commit log: .* of commit log \\S*${path.basename(log)} from offset [\\d,]+`),
    );
    expect(repair.stdout).toMatch(/repaired .*: skipped 1 damaged stretch of commit log/);
    const backup = /kept in (\S+) /.exec(repair.stdout)?.[1];
    expect(backup !== undefined && readdirSync(path.join(backup, 'wal')).includes(path.basename(log))).toBe(true);
    await start();
    const rows = await readAll();
    const lost = [...expected.keys()].filter((k) => !rows.get(k)?.equals(expected.get(k)!));
    // The round's first write was the damaged record; everything else acknowledged is there.
    expect(lost).toEqual([`r${round}-000`]);
    expected.delete(`r${round}-000`);
    expect(rows.get(tailKey)?.equals(tailValue)).toBe(true);
    expected.set(tailKey, tailValue);
  });
});
