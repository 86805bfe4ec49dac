import path from 'node:path';
import { spawnServer } from '../servers/server-process.js';
import { buildProbe } from './probe-build.js';
import type { ProbeClient, ProbeRequest, ProbeResult, StartupVariant } from './protocol.js';
import { PROBE_RESULT_PREFIX } from './protocol.js';
import { firstCallRequests } from './requests.js';

/** Runs start-up probes (probe.ts) from the harness. */

const PROBE_TIMEOUT_MS = 120_000;
const TABLE = 'startup';

export interface Prober {
  /**
   * Starts `variant` in a new probe process, makes the first calls with
   * `client`, and returns what the probe measured. `dist` is the build to
   * start (default: the repository's dist/).
   */
  run(variant: StartupVariant, client: ProbeClient, dist?: string): Promise<ProbeResult>;
}

/** Compiles the probe and encodes the raw requests (once per session). */
export function createProber(repoRoot: string): Prober {
  const probe = buildProbe(repoRoot);
  const requests = firstCallRequests(TABLE);
  return {
    async run(variant, client, dist = path.join(repoRoot, 'dist')) {
      const request: ProbeRequest = { variant, client, repoRoot, dist: path.resolve(dist), table: TABLE, ...requests };
      // Under the harness's watchdog, like a server: it cannot outlive the harness, nor can the server it starts.
      const proc = await spawnServer('startup probe', process.execPath, [probe, JSON.stringify(request)], { cwd: repoRoot });
      try {
        const m = await proc.waitForOutput(new RegExp(`^${PROBE_RESULT_PREFIX}(.*)$`, 'm'), PROBE_TIMEOUT_MS);
        return JSON.parse(m[1] ?? '') as ProbeResult;
      } finally {
        await proc.stop();
      }
    },
  };
}
