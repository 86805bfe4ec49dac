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
});
