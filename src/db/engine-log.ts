import type { Logger } from '../log.js';
import type { CommitLogDamage, EngineEvent } from '../storage/lsm/engine-events.js';
import { errnoText } from '../storage/fs/errno.js';
import { formatBytes, formatCount, formatMillis } from '../units.js';

/**
 * Puts the durable engine's reports in the log at info, in words with their
 * figures, naming a store (tablet) by its table where the database knows it:
 *   recovered ./data in 1.2 s: 4 tablets, 12 SSTables (45.6 MiB); replayed 2 commit-log files (3.4 MiB, 1,234 records: 1,100 rows not yet in SSTables), then flushed 3 tablets
 *   flushed tablet 1.5 of projects/p/instances/i/tables/t (memtable full): 32.0 MiB in memory -> 12.3 MiB SSTable, 123,456 entries, in 240 ms
 *   compacted tablet 1.5 of ... (major): 4 SSTables, 48.2 MiB -> 40.1 MiB, 300,000 entries, in 1.2 s
 * and, at warn, a build worker's death:
 *   background worker 1 died: ... while it built an SSTable for the compaction of tablet 1.5 of ...; the compaction was redone on the serving thread, nothing was lost
 */
export function logEngineEvent(
  logger: Logger,
  event: EngineEvent,
  where: { readonly dataDir: string; readonly tabletOf: (storeId: string) => string },
): void {
  switch (event.kind) {
    case 'recovered': {
      for (const d of event.logDamage) logCommitLogDamage(logger, d);
      if (event.stores === 0 && event.sstables === 0 && event.records === 0) {
        logger.info(`opened ${where.dataDir} in ${formatMillis(event.millis)}: no tables yet`, {
          event: 'recovered',
          dataDir: where.dataDir,
          ...figures(event),
        });
        return;
      }
      const replayed =
        event.records === 0
          ? 'nothing to replay from the commit log'
          : `replayed ${plural(event.logFiles, 'commit-log file')} (${formatBytes(event.logBytes)}, ${plural(event.records, 'record')}: ${plural(event.rowsReplayed, 'row')} not yet in SSTables${event.dropsReplayed > 0 ? `, ${plural(event.dropsReplayed, 'drop')}` : ''})${event.storesFlushed > 0 ? `, then flushed ${plural(event.storesFlushed, 'tablet')}` : ''}`;
      logger.info(
        `recovered ${where.dataDir} in ${formatMillis(event.millis)}: ${plural(event.stores, 'tablet')}, ${plural(event.sstables, 'SSTable')} (${formatBytes(event.sstableBytes)}); ${replayed}`,
        {
          event: 'recovered',
          dataDir: where.dataDir,
          ...figures(event),
        },
      );
      return;
    }
    case 'flushed':
      logger.info(
        `flushed ${where.tabletOf(event.store)} (${event.reason}): ${formatBytes(event.memtableBytes)} in memory -> ${formatBytes(event.fileBytes)} SSTable, ${plural(event.entries, 'entry', 'entries')}, in ${formatMillis(event.millis)}`,
        { event: 'flushed', tablet: event.store, ...figures(event) },
      );
      return;
    case 'compacted':
      logger.info(
        `compacted ${where.tabletOf(event.store)} (${event.major ? 'major: GC rules and deletes applied' : 'minor'}): ${plural(event.inputFiles, 'SSTable')}, ${formatBytes(event.inputBytes)} -> ${formatBytes(event.outputBytes)}, ${plural(event.outputEntries, 'entry', 'entries')}, in ${formatMillis(event.millis)}`,
        { event: 'compacted', tablet: event.store, ...figures(event) },
      );
      return;
    case 'disk-full':
      logger.warn(
        `the disk of ${where.dataDir} is full: ${formatBytes(event.freeBytes)} free, less than the ${formatBytes(event.reserveBytes)} kept in reserve (--min-free-disk); writes are refused (RESOURCE_EXHAUSTED) until space is freed, reads go on`,
        { event: 'disk-full', freeBytes: event.freeBytes, reserveBytes: event.reserveBytes },
      );
      return;
    case 'disk-space-back':
      logger.info(`the disk of ${where.dataDir} has ${formatBytes(event.freeBytes)} free again: writes are taken again`, {
        event: 'disk-space-back',
        freeBytes: event.freeBytes,
        reserveBytes: event.reserveBytes,
      });
      return;
    case 'background-retry': {
      const what =
        event.job === 'commit-log rotation'
          ? 'starting a new commit-log file'
          : `the ${event.job === 'exclusive' ? 'split, merge or GC pass' : event.job} of ${where.tabletOf(event.store ?? '?')}`;
      const when =
        event.job === 'commit-log rotation'
          ? 'tried again at a later write; the current file takes the writes meanwhile'
          : event.job === 'exclusive'
            ? 'it will be asked for again'
            : `retrying in ${formatMillis(event.delayMillis)}; writes go on meanwhile (they wait once memtables reach their budget)`;
      logger.warn(`${what} failed: ${errnoText(event.errno)} (${event.reason}); ${when}`, {
        event: 'background-retry',
        job: event.job,
        ...(event.store === undefined ? {} : { tablet: event.store }),
        errno: event.errno,
        delayMillis: event.delayMillis,
      });
      return;
    }
    case 'start-writes':
      if (event.state === 'deferred')
        logger.warn(
          `the disk of ${where.dataDir} is full (${errnoText(event.errno)}: ${event.reason}): serving reads only; writes are refused (RESOURCE_EXHAUSTED) until the start-up writes succeed, tried again by themselves as space returns`,
          { event: 'start-writes', state: event.state, errno: event.errno },
        );
      else
        logger.info(`the disk of ${where.dataDir} has room again: the start-up writes are done, writes are taken`, {
          event: 'start-writes',
          state: event.state,
        });
      return;
    case 'storage-failed':
      logger.error(
        `storage failed${event.errno === undefined ? '' : ` (${errnoText(event.errno)})`}: ${event.reason}. Writes are refused (UNAVAILABLE) until restart; reads go on; a restart recovers every acknowledged write`,
        { event: 'storage-failed', ...(event.errno === undefined ? {} : { errno: event.errno }) },
      );
      return;
    case 'worker-lost':
      logger.warn(
        `${event.reason} while it built an SSTable for the ${event.job} of ${where.tabletOf(event.store)}; the ${event.job} was redone on the serving thread, nothing was lost`,
        { event: 'worker-lost', tablet: event.store, job: event.job, worker: event.worker },
      );
      return;
  }
}

/** A warning for each stretch of a commit log that replay did not read back, naming the file, offset and bytes. */
function logCommitLogDamage(logger: Logger, d: CommitLogDamage): void {
  const what = `${formatBytes(d.bytes)} (${formatCount(d.bytes)} bytes) of commit log ${d.file} from offset ${formatCount(d.offset)}`;
  logger.warn(
    d.where === 'tail'
      ? `dropped a damaged last record: ${what}, with nothing intact after it. A crash while it was written leaves this (those writes were never acknowledged); if the server did not crash, the disk damaged acknowledged writes`
      : `skipped damage in the middle of the commit log: ${what}; the writes in it are lost, every intact record after it was replayed`,
    { event: 'commit-log-damage', file: d.file, offset: d.offset, bytes: d.bytes, where: d.where },
  );
}

/** The event's figures as log fields (durations rounded to whole milliseconds). */
function figures(
  event: Exclude<
    EngineEvent,
    { kind: 'worker-lost' | 'background-retry' | 'disk-full' | 'disk-space-back' | 'storage-failed' | 'start-writes' }
  >,
): Record<string, unknown> {
  const { kind: _kind, ...rest } = event;
  const out: Record<string, unknown> = { ...rest };
  if ('logDamage' in out) out.logDamage = (out.logDamage as readonly CommitLogDamage[]).length;
  if ('store' in out) delete out.store;
  out.millis = Math.round(event.millis);
  return out;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
