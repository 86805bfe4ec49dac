import { Bigtable } from '@google-cloud/bigtable';
import type { Target } from './targets.js';

// google-auth-library probes the GCE metadata server (a DNS lookup and an HTTP
// request, with a warning) even when the client talks to an emulator; tests
// never run on GCE, so switch the probe off for the whole test process.
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

export const PROJECT = 'p';
export const INSTANCE = 'i';

export interface NodeClientOptions {
  readonly projectId?: string;
}

/**
 * An official Node client (@google-cloud/bigtable) connected to `target`.
 *
 * The client reads BIGTABLE_EMULATOR_HOST once, at construction; passing the
 * address as `apiEndpoint` does the same thing (plaintext, insecure
 * credentials, no auth) without touching the environment, so clients for
 * different targets can live in one process (harness.test.ts checks this).
 * Client-side metrics export is switched off: it would call Cloud Monitoring.
 */
export function nodeClient(target: Pick<Target, 'address'>, options: NodeClientOptions = {}): Bigtable {
  return new Bigtable({
    projectId: options.projectId ?? PROJECT,
    apiEndpoint: target.address,
    metricsEnabled: false,
  });
}
