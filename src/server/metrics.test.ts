import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../testing/memory-logger.js';
import { type MethodInfo, resource } from './method-table.js';
import { LATENCY_BUCKETS_SECONDS, MAX_TABLES_PER_METHOD, Metrics, NAMELESS, OTHER_TABLES, observeCalls } from './metrics.js';
import type { CallStartInfo } from './rpc.js';

/** What a call's start tells the observer besides its request: no metadata, no caller. */
const CALL: CallStartInfo = { metadata: { get: () => [] }, principal: undefined };
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
  it('counts every call by method, table and status, in flight until it ends', () => {
    const metrics = new Metrics();
    const begin = observeCalls(metrics, memoryLogger(), 0)(info('MutateRow'));
    expect(metrics.series()).toEqual([]);
    const table = 'projects/p/instances/i/tables/t';
    const end = begin({ tableName: table }, CALL);
    expect(metrics.inFlight(SERVICE, 'MutateRow')).toBe(1);
    end('OK');
    end('NOT_FOUND'); // ignored: a call ends once
    begin({}, CALL)('NOT_FOUND');
    expect(metrics.count(SERVICE, 'MutateRow', 'OK')).toBe(1);
    expect(metrics.count(SERVICE, 'MutateRow', 'OK', table)).toBe(1);
    expect(metrics.count(SERVICE, 'MutateRow', 'NOT_FOUND')).toBe(1);
    // A call that names no table counts under "".
    expect(metrics.count(SERVICE, 'MutateRow', 'NOT_FOUND', '')).toBe(1);
    expect(metrics.inFlight(SERVICE, 'MutateRow')).toBe(0);
    const [series] = metrics.series();
    expect(series).toMatchObject({ service: SERVICE, method: 'MutateRow', count: 2 });
    expect(series!.buckets.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it("counts a call through an authorized view under the view's table", () => {
    const metrics = new Metrics();
    const viewInfo: MethodInfo = { ...info('ReadRows'), resource: (req) => resource('authorizedView', (req as { view?: string }).view) };
    const table = 'projects/p/instances/i/tables/t';
    observeCalls(metrics, memoryLogger(), 0)(viewInfo)({ view: `${table}/authorizedViews/v` }, CALL)('OK');
    expect(metrics.count(SERVICE, 'ReadRows', 'OK', table)).toBe(1);
  });

  it('puts each latency in the first bucket whose bound it does not exceed', async () => {
    const metrics = new Metrics();
    const begin = observeCalls(metrics, memoryLogger(), 0)(info('ReadRows'));
    const end = begin({ tableName: 't' }, CALL);
    await sleep(30);
    end('OK');
    const [series] = metrics.series();
    const i = series!.buckets.findIndex((n) => n > 0);
    expect(series!.sumSeconds).toBeGreaterThanOrEqual(0.029);
    expect(LATENCY_BUCKETS_SECONDS[i]).toBeGreaterThanOrEqual(series!.sumSeconds);
    expect(LATENCY_BUCKETS_SECONDS[i - 1]).toBeLessThan(series!.sumSeconds);
  });

  it('counts tables past the cap of distinct names per method under one label', () => {
    const metrics = new Metrics();
    const begin = observeCalls(metrics, memoryLogger(), 0)(info('MutateRow'));
    for (let i = 0; i < MAX_TABLES_PER_METHOD + 5; i++) begin({ tableName: `projects/p/instances/i/tables/t${i}` }, CALL)('OK');
    const [series] = metrics.series();
    expect(series!.tables.size).toBe(MAX_TABLES_PER_METHOD + 1);
    expect(metrics.count(SERVICE, 'MutateRow', 'OK', OTHER_TABLES)).toBe(5);
    expect(metrics.count(SERVICE, 'MutateRow', 'OK')).toBe(MAX_TABLES_PER_METHOD + 5);
  });

  it('logs calls that take at least the threshold with the resource they target, and no others', async () => {
    const logger = memoryLogger();
    const metrics = new Metrics();
    const observe = observeCalls(metrics, logger, 40);
    observe(info('MutateRow'))({ tableName: 'projects/p/instances/i/tables/t' }, CALL)('OK');
    expect(logger.records).toEqual([]);
    const end = observe(info('ReadModifyWriteRow'))({ tableName: 'projects/p/instances/i/tables/t' }, CALL);
    await sleep(60);
    end('OK');
    const noTarget = observe(info('PingAndWarm'))({}, CALL);
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
    const end = observeCalls(new Metrics(), logger, 0)(info('MutateRow'))({ tableName: 't' }, CALL);
    await sleep(20);
    end('OK');
    expect(logger.records).toEqual([]);
  });
});

describe('metrics: names from clients', () => {
  it('counts calls that failed on their name under one series, whatever names they gave', () => {
    const metrics = new Metrics();
    const begin = metrics.calls(SERVICE, 'ReadRows');
    for (let i = 0; i < 5000; i++)
      begin(`projects/p/instances/i/tables/${'x'.repeat(i % 100)}${i}`)(i % 2 === 0 ? 'NOT_FOUND' : 'INVALID_ARGUMENT');
    begin('projects/p/instances/i/tables/real')('OK');
    begin('projects/p/instances/i/tables/real')('FAILED_PRECONDITION');
    expect(metrics.count(SERVICE, 'ReadRows', 'NOT_FOUND', NAMELESS)).toBe(2500);
    expect(metrics.count(SERVICE, 'ReadRows', 'INVALID_ARGUMENT', NAMELESS)).toBe(2500);
    expect(metrics.count(SERVICE, 'ReadRows', 'OK', 'projects/p/instances/i/tables/real')).toBe(1);
    expect(metrics.count(SERVICE, 'ReadRows', 'FAILED_PRECONDITION', 'projects/p/instances/i/tables/real')).toBe(1);
  });
});
