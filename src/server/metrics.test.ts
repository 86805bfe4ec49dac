import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../testing/memory-logger.js';
import { type MethodInfo, resource } from './method-table.js';
import { Metrics, observeCalls } from './metrics.js';

const SERVICE = 'google.bigtable.v2.Bigtable';

function info(name: string): MethodInfo {
  return {
    path: `/${SERVICE}/${name}`,
    service: SERVICE,
    name,
    label: `Bigtable/${name}`,
    shape: 'unary',
    resource: (req) => resource('table', (req as { tableName?: string }).tableName),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('observeCalls', () => {
  it('counts every call by method and status, in flight until it ends', () => {
    const metrics = new Metrics();
    const begin = observeCalls(metrics, memoryLogger(), 0)(info('MutateRow'));
    expect(metrics.render()).not.toContain('method="MutateRow"');
    const end = begin({ tableName: 't' });
    expect(metrics.render()).toContain(`tabletop_grpc_in_flight{service="${SERVICE}",method="MutateRow"} 1`);
    end('OK');
    end('NOT_FOUND'); // ignored: a call ends once
    begin({})('NOT_FOUND');
    expect(metrics.count(SERVICE, 'MutateRow', 'OK')).toBe(1);
    expect(metrics.count(SERVICE, 'MutateRow', 'NOT_FOUND')).toBe(1);
    expect(metrics.render()).toContain(`tabletop_grpc_in_flight{service="${SERVICE}",method="MutateRow"} 0`);
  });

  it('logs calls that take at least the threshold with the resource they target, and no others', async () => {
    const logger = memoryLogger();
    const metrics = new Metrics();
    const observe = observeCalls(metrics, logger, 40);
    observe(info('MutateRow'))({ tableName: 'projects/p/instances/i/tables/t' })('OK');
    expect(logger.records).toEqual([]);
    const end = observe(info('ReadModifyWriteRow'))({ tableName: 'projects/p/instances/i/tables/t' });
    await sleep(60);
    end('OK');
    const noTarget = observe(info('PingAndWarm'))({});
    await sleep(60);
    noTarget('NOT_FOUND');
    expect(logger.records).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(/^slow call: ReadModifyWriteRow on projects\/p\/instances\/i\/tables\/t took \d+ ms \(OK\)$/),
        fields: {
          event: 'slow-call',
          service: SERVICE,
          method: 'ReadModifyWriteRow',
          target: 'projects/p/instances/i/tables/t',
          code: 'OK',
          millis: expect.any(Number),
        },
      },
      {
        level: 'warn',
        message: expect.stringMatching(/^slow call: PingAndWarm took \d+ ms \(NOT_FOUND\)$/),
        fields: { event: 'slow-call', service: SERVICE, method: 'PingAndWarm', code: 'NOT_FOUND', millis: expect.any(Number) },
      },
    ]);
    expect(metrics.count(SERVICE, 'ReadModifyWriteRow', 'OK')).toBe(1);
  });

  it('logs nothing when the threshold is 0', async () => {
    const logger = memoryLogger();
    const end = observeCalls(new Metrics(), logger, 0)(info('MutateRow'))({ tableName: 't' });
    await sleep(20);
    end('OK');
    expect(logger.records).toEqual([]);
  });
});
