import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../testing/memory-logger.js';
import { Metrics } from './metrics.js';
import { type RpcEnv, type UnaryCall, rpcHandlerOf, unary } from './rpc.js';

/** Runs a wrapped unary handler on an in-memory call; resolves with how the call ended. */
function call(handler: unknown, request: unknown): Promise<{ ok: unknown } | { code: number; details: string }> {
  const neutral = rpcHandlerOf(handler);
  if (neutral?.kind !== 'unary') throw new Error('not a unary handler');
  return new Promise((resolve) => {
    const c: UnaryCall<unknown, unknown> = {
      request,
      metadata: { get: () => [] },
      cancelled: false,
      respond: (ok) => resolve({ ok }),
      fail: (code, details) => resolve({ code, details }),
    };
    neutral.run(c);
  });
}

describe('slow call log', () => {
  it('logs calls that take at least the threshold, with their target, and no others', async () => {
    const logger = memoryLogger();
    const env: RpcEnv = { service: 'google.bigtable.v2.Bigtable', metrics: new Metrics(), logger, slowCallMillis: 40 };
    const slow = unary(env, 'ReadModifyWriteRow', async () => {
      await new Promise((r) => setTimeout(r, 60));
      return {};
    });
    const fast = unary(env, 'MutateRow', () => ({}));
    await call(fast, { tableName: 'projects/p/instances/i/tables/t' });
    expect(logger.records).toEqual([]);
    await call(slow, { tableName: 'projects/p/instances/i/tables/t' });
    expect(logger.records).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(/^slow call: ReadModifyWriteRow on projects\/p\/instances\/i\/tables\/t took \d+ ms \(OK\)$/),
        fields: expect.objectContaining({ event: 'slow-call', method: 'ReadModifyWriteRow', target: 'projects/p/instances/i/tables/t', code: 'OK', millis: expect.any(Number) }),
      },
    ]);
    expect(env.metrics.count(env.service, 'ReadModifyWriteRow', 'OK')).toBe(1);
  });

  it('logs nothing when the threshold is 0', async () => {
    const logger = memoryLogger();
    const env: RpcEnv = { service: 's', metrics: new Metrics(), logger, slowCallMillis: 0 };
    await call(unary(env, 'M', async () => new Promise((r) => setTimeout(() => r({}), 20))), {});
    expect(logger.records).toEqual([]);
  });
});
