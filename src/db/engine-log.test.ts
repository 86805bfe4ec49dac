import { describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../log.js';
import { logEngineEvent } from './engine-log.js';

function capture(): { logger: Logger; lines: { level: string; message: string; fields: LogFields | undefined }[] } {
  const lines: { level: string; message: string; fields: LogFields | undefined }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void =>
      void lines.push({ level, message, fields });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

const where = { dataDir: './data', tabletOf: (id: string) => `tablet ${id} of projects/p/instances/i/tables/t` };

describe('the engine log', () => {
  it('warns when a build worker died, naming the work, the tablet, and that nothing was lost', () => {
    const { logger, lines } = capture();
    logEngineEvent(
      logger,
      { kind: 'worker-lost', store: '1.5', job: 'compaction', worker: 2, reason: 'background worker 2 died: out of memory' },
      where,
    );
    expect(lines).toEqual([
      {
        level: 'warn',
        message:
          'background worker 2 died: out of memory while it built an SSTable for the compaction of tablet 1.5 of projects/p/instances/i/tables/t; the compaction was redone on the serving thread, nothing was lost',
        fields: { event: 'worker-lost', tablet: '1.5', job: 'compaction', worker: 2 },
      },
    ]);
  });

  it('reports a flush at info with its figures', () => {
    const { logger, lines } = capture();
    logEngineEvent(
      logger,
      {
        kind: 'flushed',
        store: '1.5',
        reason: 'memtable full',
        entries: 1234,
        memtableBytes: 32 << 20,
        fileBytes: 12 << 20,
        millis: 240.4,
      },
      where,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('info');
    expect(lines[0]!.message).toMatch(
      /^flushed tablet 1\.5 of .* \(memtable full\): 32\.0 MiB in memory -> 12\.0 MiB SSTable, 1,234 entries, in 240 ms$/,
    );
    expect(lines[0]!.fields).toMatchObject({ event: 'flushed', tablet: '1.5', millis: 240 });
  });

  it('warns about commit-log bytes that recovery dropped or skipped, naming the file, offset and bytes', () => {
    const { logger, lines } = capture();
    logEngineEvent(
      logger,
      {
        kind: 'recovered',
        millis: 12,
        stores: 1,
        sstables: 0,
        sstableBytes: 0,
        logFiles: 1,
        logBytes: 4096,
        records: 9,
        rowsReplayed: 9,
        dropsReplayed: 0,
        storesFlushed: 1,
        logDamage: [
          { file: './data/wal/000004.wal', offset: 2345, bytes: 1061, where: 'tail' },
          { file: './data/wal/000005.wal', offset: 77, bytes: 52, where: 'middle' },
        ],
      },
      where,
    );
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^dropped a damaged last record: 1\.0 KiB \(1,061 bytes\) of commit log \.\/data\/wal\/000004\.wal from offset 2,345, .*never acknowledged.*the disk damaged acknowledged writes$/,
      ),
      expect.stringMatching(
        /^skipped damage in the middle of the commit log: 52 B \(52 bytes\) of commit log \.\/data\/wal\/000005\.wal from offset 77; the writes in it are lost/,
      ),
    ]);
    expect(warnings[0]!.fields).toEqual({
      event: 'commit-log-damage',
      file: './data/wal/000004.wal',
      offset: 2345,
      bytes: 1061,
      where: 'tail',
    });
    // The info line still reports the recovery, with the damage counted among its fields.
    expect(lines.find((l) => l.level === 'info')?.fields).toMatchObject({ event: 'recovered', logDamage: 2 });
  });

  it('warns when the system failed background work, saying what is retried when', () => {
    const { logger, lines } = capture();
    logEngineEvent(
      logger,
      {
        kind: 'background-retry',
        job: 'flush',
        store: '1.5',
        errno: 'ENOSPC',
        reason: 'write sst/000012.sst: no space left on device',
        delayMillis: 800,
      },
      where,
    );
    logEngineEvent(
      logger,
      { kind: 'background-retry', job: 'commit-log rotation', errno: 'EMFILE', reason: 'open wal/000013.wal', delayMillis: 0 },
      where,
    );
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      [
        'warn',
        'the flush of tablet 1.5 of projects/p/instances/i/tables/t failed: the disk is full (write sst/000012.sst: no space left on device); retrying in 800 ms; writes go on meanwhile (they wait once memtables reach their budget)',
      ],
      [
        'warn',
        'starting a new commit-log file failed: the process has too many open files (open wal/000013.wal); tried again at a later write; the current file takes the writes meanwhile',
      ],
    ]);
    expect(lines[0]!.fields).toEqual({ event: 'background-retry', job: 'flush', tablet: '1.5', errno: 'ENOSPC', delayMillis: 800 });
  });

  it('says at error level that storage failed, why, and what still works', () => {
    const { logger, lines } = capture();
    logEngineEvent(
      logger,
      {
        kind: 'storage-failed',
        errno: 'EIO',
        reason: 'commit log wal/000003.log failed; writes are refused until restart: fdatasync: i/o error',
      },
      where,
    );
    expect(lines).toEqual([
      {
        level: 'error',
        message:
          'storage failed (an I/O error from the disk): commit log wal/000003.log failed; writes are refused until restart: fdatasync: i/o error. Writes are refused (UNAVAILABLE) until restart; reads go on; a restart recovers every acknowledged write',
        fields: { event: 'storage-failed', errno: 'EIO' },
      },
    ]);
  });
});
