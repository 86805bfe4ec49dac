import { status } from '@grpc/grpc-js';

export { status };

/** The gRPC status code carried by an error from the official clients, if any. */
export function codeOf(e: unknown): number | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'number') return e.code;
  return undefined;
}

export function codeName(code: number | undefined): string {
  if (code === undefined) return 'no code';
  return status[code] ?? String(code);
}

/** A failed call: its gRPC code and message. */
export interface CallFailure {
  readonly code: number | undefined;
  readonly message: string;
  readonly error: unknown;
}

/** Awaits `p`, expecting it to fail; returns the failure (throws if it succeeded). */
export async function failure(p: Promise<unknown>): Promise<CallFailure> {
  try {
    await p;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { code: codeOf(error), message, error };
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/**
 * Awaits `p`, expecting a gRPC failure with `code`; returns the error message
 * (for further assertions). The assertion message names both codes.
 */
export async function expectCode(p: Promise<unknown>, code: number): Promise<string> {
  const f = await failure(p);
  if (f.code !== code) {
    throw new Error(`expected ${codeName(code)} (${code}), got ${codeName(f.code)} (${f.code}): ${f.message}`);
  }
  return f.message;
}

/** 'ok' when `p` succeeds, else the gRPC code of its failure ('no code' if it has none). */
export async function outcome(p: Promise<unknown>): Promise<number | 'ok' | 'no code'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return codeOf(e) ?? 'no code';
  }
}

/**
 * The per-entry failures of a Node client MutateRows call (its
 * PartialFailureError), as `row key → gRPC code`. Throws if `p` succeeds or
 * fails without entry errors.
 */
export async function entryFailures(p: Promise<unknown>): Promise<Record<string, number | undefined>> {
  const f = await failure(p);
  const errors = (f.error as { errors?: { code?: number; entry?: { key?: unknown; rowKey?: unknown } }[] }).errors;
  if (!errors) throw new Error(`expected per-entry failures, got: ${f.message}`);
  const out: Record<string, number | undefined> = {};
  for (const e of errors) {
    const key = e.entry?.key ?? e.entry?.rowKey;
    out[Buffer.isBuffer(key) ? key.toString('latin1') : String(key)] = e.code;
  }
  return out;
}

/**
 * The outcome of a one-entry MutateRows call through the Node client: 'ok',
 * or the failure's gRPC code, whether the server failed the entry or the
 * whole RPC (both are acceptable ways to reject a single bad entry).
 */
export async function singleMutationOutcome(p: Promise<unknown>): Promise<number | 'ok' | 'no code'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    const code = codeOf(e);
    if (code !== undefined) return code;
    const errors = (e as { errors?: { code?: number }[] }).errors;
    if (errors?.length === 1 && typeof errors[0]?.code === 'number') return errors[0].code;
    return 'no code';
  }
}
