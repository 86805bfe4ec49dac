import { logEngineEvent } from '../db/engine-log.js';
import type { Logger } from '../log.js';
import { formatBytes, formatCount } from '../units.js';
import type { CliIo } from './cli-io.js';

export interface RepairOptions {
  readonly dataDir?: string;
}

/**
 * `tabletop repair`: starts a data directory past damage in the middle of a
 * commit log (storage/lsm/repair.ts), printing each damaged stretch (file,
 * offset, bytes), what was replayed, and where the logs were kept as they
 * were. Exit code 0 when the directory opens now (repaired or whole), 1 when
 * it cannot be repaired here.
 */
export async function repairCommand(opts: RepairOptions, io: CliIo): Promise<number> {
  const dir = opts.dataDir ?? (io.env?.['TABLETOP_DATA_DIR'] || './data');
  const { repairDataDir } = await import('../storage/lsm/repair.js');
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => io.stdout(`  ${m}`),
    error: (m) => io.stderr(`  ${m}`),
  };
  io.stdout(`repairing ${dir}: replaying its commit logs, skipping damaged records...`);
  try {
    const r = await repairDataDir(dir, { onEvent: (e) => logEngineEvent(logger, e, { dataDir: dir, tabletOf: (id) => `tablet ${id}` }) });
    const replayed = `${formatCount(r.records)} commit-log records read back (${formatCount(r.rowsReplayed)} rows not yet in SSTables, now flushed)`;
    if (r.damage.length === 0) {
      io.stdout(`nothing to repair in ${dir}: the commit logs are whole; ${replayed}.`);
      return 0;
    }
    const bytes = r.damage.reduce((n, d) => n + d.bytes, 0);
    io.stdout(
      `repaired ${dir}: skipped ${formatCount(r.damage.length)} damaged stretch${r.damage.length === 1 ? '' : 'es'} of commit log (${formatBytes(bytes)}); the writes in them are lost; ${replayed}.`,
    );
    io.stdout(`the commit logs as they were are kept in ${r.backup ?? '?'} (remove it once the data is checked).`);
    return 0;
  } catch (e) {
    io.stderr(`tabletop repair: ${e instanceof Error ? e.message : String(e)}`);
    io.stderr('repair starts past damage in commit logs only; damage to the manifest or an SSTable needs a backup.');
    return 1;
  }
}
