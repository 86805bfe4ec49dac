import type { Bigtable, Table } from '@google-cloud/bigtable';
import { nodeClient } from '../harness/node-client.js';
import { type DurableServer, type StartDurableOptions, startDurable } from './durable-server.js';

/**
 * A durable server and table `t` of instance `i` through the official Node client, for tests of what the server
 * answers when something fails: the client's own retries (of UNAVAILABLE, RESOURCE_EXHAUSTED...) are off, so that
 * each call shows the server's answer. `servers` and `clients` collect what was started, for the test to stop.
 */
export async function startAnswering(
  options: StartDurableOptions,
  started: { servers: DurableServer[]; clients: Bigtable[] },
): Promise<{ server: DurableServer; table: Table }> {
  const server = await startDurable(options);
  started.servers.push(server);
  const client = nodeClient(server);
  started.clients.push(client);
  const table = client.instance('i').table('t');
  (table as unknown as { maxRetries: number }).maxRetries = 0;
  return { server, table };
}

/**
 * The gRPC status a call failed with (undefined when it succeeded); a bulk write's failure comes as the client's
 * PartialFailureError, whose first entry's status is taken.
 */
export async function failureOf(call: Promise<unknown>): Promise<{ code?: number; message?: string } | undefined> {
  const e = (await call.then(
    () => undefined,
    (err: unknown) => err,
  )) as { code?: number; message?: string; errors?: { code?: number; message?: string }[] } | undefined;
  return e?.errors?.[0] ?? e;
}

/** The row keys of `table`, in order. */
export async function keysOf(table: Table): Promise<string[]> {
  const [rows] = await table.getRows();
  return rows.map((r) => String(r.id));
}
