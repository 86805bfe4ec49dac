import { afterAll, beforeAll } from 'vitest';
import type { Bigtable, Instance } from '@google-cloud/bigtable';
import { INSTANCE, nodeClient } from './node-client.js';
import { startTarget } from './targets.js';
import type { Target, TargetKind } from './targets.js';

/** What a suite gets for one target: the server, an official Node client and its instance. */
export interface TargetContext {
  readonly kind: TargetKind;
  readonly target: Target;
  readonly client: Bigtable;
  readonly instance: Instance;
}

/**
 * Starts a target of `kind` before the enclosing describe block and stops it
 * (and closes its client) after. The returned object's fields are usable in
 * tests and hooks, not while the describe body is being collected.
 */
export function useTarget(kind: TargetKind): TargetContext {
  let target: Target | undefined;
  let client: Bigtable | undefined;
  beforeAll(async () => {
    target = await startTarget(kind);
    client = nodeClient(target);
  });
  afterAll(async () => {
    await client?.close();
    await target?.stop();
  });
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} used before beforeAll started the ${kind} target`);
    return v;
  };
  return {
    kind,
    get target() {
      return need(target, 'target');
    },
    get client() {
      return need(client, 'client');
    },
    get instance() {
      return need(client, 'client').instance(INSTANCE);
    },
  };
}
