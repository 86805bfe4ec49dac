import type { StartupWorkload } from './workload.js';

/**
 * Start-up workloads: how long a new server takes to answer its first calls,
 * and how much memory it holds then, which matter when a test suite starts a
 * server per test file. Each run starts tabletop (in one of three ways) and
 * Google's emulator in new probe processes (../startup/probe.ts), alternating.
 */

const FIRST_CALLS =
  'then a CreateTable (one column family) and a ReadRows of the new table, first over raw gRPC (node:http2; the time to each answer, and the RSS once the server is idle), then, in another start, through a new official Node client (createTable, getRows)';

export function startupInProcess(): StartupWorkload {
  return startup(
    'startup-in-process',
    'in-process',
    'Start-up: startServer() in the test process',
    `A new Node process imports tabletop's build and calls startServer() (in memory, no HTTP), ${FIRST_CALLS}; the emulator is spawned instead. Times run from just before the import; RSS is what the start added to the process`,
  );
}

export function startupServe(): StartupWorkload {
  return startup(
    'startup-serve',
    'serve-memory',
    'Start-up: tabletop serve --in-memory',
    `A new Node process spawns \`tabletop serve --in-memory\` (HTTP on a free port, as \`serve\` runs) or the emulator and waits for its readiness line, ${FIRST_CALLS}. Times run from the spawn`,
  );
}

export function startupServeDurable(): StartupWorkload {
  return startup(
    'startup-serve-durable',
    'serve-durable',
    'Start-up: tabletop serve --data-dir (empty)',
    `As startup-serve, with tabletop durable in a new, empty --data-dir (the emulator keeps data in memory only)`,
  );
}

function startup(name: string, variant: StartupWorkload['variant'], title: string, text: string): StartupWorkload {
  return {
    kind: 'startup',
    variant,
    name,
    title,
    group: 'startup',
    per: 'op',
    unitName: 'starts',
    mbps: false,
    latency: false,
    freshServer: true,
    writes: false,
    describe: (s) =>
      `${text}. ${s.startupRuns} run(s) per target${s.warmupSeconds > 0 ? ', after one unrecorded start of each (the page cache holds their files)' : ''}`,
  };
}
