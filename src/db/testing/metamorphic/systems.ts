import type { Config } from '../../../config.js';
import { type TabletopDatabase, createDatabase } from '../../index.js';
import { ManualClock } from '../../../model/clock.js';
import { MemoryFileSystem } from '../../../storage/fs/memory-fs.js';
import { createMemoryEngine } from '../../../storage/memory/index.js';
import type { StorageEngine } from '../../../storage/store.js';
import { type DiskEngine, openDiskEngine } from '../../../storage/lsm/disk-engine.js';
import type { Op } from './ops.js';
import { T0 } from './universe.js';
import { seededRandom } from '../../../testing/random.js';

/**
 * The systems an op log runs on: a database over the memory engine (the
 * reference) and databases over the disk engine on a MemoryFileSystem, one
 * per configuration. Each has its own manual clock and its own seeded random
 * source for row_sample_filter, so the same log gives the same calls.
 */
export interface System {
  readonly name: string;
  readonly clock: ManualClock;
  readonly db: TabletopDatabase;
  /** Flush, compact, restart or crash: the disk engine acts, the memory engine ignores them. */
  maintain(op: Extract<Op, { kind: 'flush' | 'compact' | 'restart' | 'crash' }>): Promise<void>;
  /** Failures of background work reported so far. */
  readonly backgroundErrors: readonly unknown[];
  close(): Promise<void>;
}

/** A disk-engine configuration of the metamorphic test. */
export interface DiskConfig {
  readonly name: string;
  /** Flushes and compactions only when an op asks for them. */
  readonly manualCompaction: boolean;
  readonly config: Partial<Config>;
}

/** Database settings shared by every system: no timer-driven GC sweep (the log runs sweeps). */
const DB_CONFIG: Partial<Config> = { gcSweepIntervalMillis: 0 };

const SAMPLE_SEED = 20260101;

async function openDatabase(engine: StorageEngine, clock: ManualClock, random: () => number, errors: unknown[]): Promise<TabletopDatabase> {
  return createDatabase({ engine, clock, random, config: DB_CONFIG, onBackgroundError: (e) => errors.push(e) });
}

/** The reference system; `engine` replaces the memory engine (tests of the harness itself). */
export async function openMemorySystem(engine: StorageEngine = createMemoryEngine(), name = 'memory'): Promise<System> {
  const clock = new ManualClock(T0);
  const errors: unknown[] = [];
  const db = await openDatabase(engine, clock, seededRandom(SAMPLE_SEED), errors);
  return {
    name,
    clock,
    db,
    backgroundErrors: errors,
    maintain: async () => undefined,
    close: () => db.close(),
  };
}

class DiskSystem implements System {
  readonly clock = new ManualClock(T0);
  readonly backgroundErrors: unknown[] = [];
  private readonly random = seededRandom(SAMPLE_SEED);
  private fs = new MemoryFileSystem();
  private engine!: DiskEngine;
  db!: TabletopDatabase;

  constructor(private readonly spec: DiskConfig) {}

  get name(): string {
    return `disk ${this.spec.name}`;
  }

  async open(): Promise<void> {
    this.engine = await openDiskEngine({
      fs: this.fs,
      dir: 'db',
      config: this.spec.config,
      manualCompaction: this.spec.manualCompaction,
      onBackgroundError: (e) => this.backgroundErrors.push(e),
    });
    this.db = await openDatabase(this.engine, this.clock, this.random, this.backgroundErrors);
  }

  async maintain(op: Extract<Op, { kind: 'flush' | 'compact' | 'restart' | 'crash' }>): Promise<void> {
    switch (op.kind) {
      case 'flush':
        await this.engine.flushAll();
        return;
      case 'compact':
        // The engine offers no public way to name its stores; the brief allows this bracket access.
        for (const store of [...this.engine['stores'].values()]) await this.engine.compactNow(store, op.major);
        return;
      case 'restart':
        await this.db.close();
        await this.open();
        return;
      case 'crash': {
        // Every operation was acknowledged (awaited) before this point: the power loss must lose none.
        // Background flushes and compactions may still be running; their unsynced bytes are lost or torn.
        const crashed = this.fs.crash(op.tornSeed === undefined ? undefined : seededRandom(op.tornSeed));
        await this.db.close();
        this.fs = crashed;
        await this.open();
        return;
      }
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

export async function openDiskSystem(spec: DiskConfig): Promise<System> {
  const system = new DiskSystem(spec);
  await system.open();
  return system;
}
