import { Histogram } from '../stats/histogram.js';
import { ValuePool, logicalRowBytes, randomBelow, rowKey } from '../workloads/dataset.js';
import { seededRandom } from '../../src/testing/random.js';
import type { FromWorker, ToWorker, WorkerConfig } from './messages.js';
import {
  METHOD,
  checkAndMutateRequest,
  fullScanRequest,
  incrementRequest,
  mutateRowRequest,
  pointReadRequest,
  setKey,
} from './requests.js';
import { openTransport } from './transport.js';
import type { Transport } from './transport.js';

/**
 * A load-generator process (forked by driver.ts). It opens its connections,
 * runs unmeasured load for the warm-up time (a fresh process is slow until
 * its JIT has warmed), says "ready", and on "go" keeps `inFlight` calls
 * running for the given seconds with pre-encoded requests: no protobuf work
 * per call, so that the server, not this client, is the bottleneck. It
 * exits when the driver disconnects.
 */

function send(m: FromWorker): void {
  process.send?.(m);
}

process.on('disconnect', () => process.exit(0));
process.on('message', (m: ToWorker) => {
  if (m.type !== 'config') return;
  prepare(m.config).then((run) => {
    process.on('message', (g: ToWorker) => {
      if (g.type === 'go') run(g.seconds, true).catch(fail);
    });
    send({ type: 'ready' });
  }, fail);
});

function fail(e: unknown): void {
  send({ type: 'failed', message: e instanceof Error ? e.message : String(e) });
}

/** One call on a lane: resolves with the rows and logical bytes it accounts for. */
type Call = (lane: number) => Promise<{ rows: number; bytes: number }>;

async function prepare(c: WorkerConfig): Promise<(seconds: number, report: boolean) => Promise<void>> {
  const transport = openTransport(c.transport, c.address, c.channels);
  const call = makeCall(c, transport);
  const run = async (seconds: number, report: boolean): Promise<void> => {
    const histogram = new Histogram();
    let ops = 0;
    let rows = 0;
    let bytes = 0;
    const progress = report ? setInterval(() => send({ type: 'progress', ops, rows, bytes }), 250) : undefined;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deadline = t0 + seconds * 1000;
    const lane = async (id: number): Promise<void> => {
      while (performance.now() < deadline) {
        const s = performance.now();
        const r = await call(id);
        histogram.record((performance.now() - s) * 1000);
        ops++;
        rows += r.rows;
        bytes += r.bytes;
      }
    };
    try {
      await Promise.all(Array.from({ length: c.inFlight }, (_, i) => lane(i)));
    } finally {
      clearInterval(progress);
    }
    if (!report) return;
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    send({ type: 'done', ops, rows, bytes, seconds: wall, cpuSeconds: (cpu.user + cpu.system) / 1e6, latency: histogram.toJSON() });
    transport.close();
  };
  await call(0); // connects, and checks that the server answers as expected
  if (c.warmupSeconds > 0) await run(c.warmupSeconds, false);
  return run;
}

function makeCall(c: WorkerConfig, t: Transport): Call {
  const random = seededRandom(c.seed);
  switch (c.kind) {
    case 'point-read': {
      const req = pointReadRequest(c.tableName);
      const lanes = Array.from({ length: c.inFlight }, () => t.frame(req.bytes));
      const rowBytes = logicalRowBytes(c.valueSize);
      return async (lane) => {
        const key = rowKey(randomBelow(random, c.rows));
        const buf = lanes[lane] as Buffer;
        setKey(req, buf, t.headerBytes, key);
        const got = await t.call(lane, METHOD.readRows, buf);
        if (got < c.valueSize) throw new Error(`point read of ${key} returned ${got} bytes: the row is missing`);
        return { rows: 1, bytes: rowBytes };
      };
    }
    case 'write': {
      const req = mutateRowRequest(c.tableName, new ValuePool(c.valueSize, c.seed).value(0), Date.now() * 1000);
      const lanes = Array.from({ length: c.inFlight }, () => t.frame(req.bytes));
      const rowBytes = logicalRowBytes(c.valueSize);
      return async (lane) => {
        const buf = lanes[lane] as Buffer;
        setKey(req, buf, t.headerBytes, 'w' + String(randomBelow(random, 1e9)).padStart(9, '0'));
        await t.call(lane, METHOD.mutateRow, buf);
        return { rows: 1, bytes: rowBytes };
      };
    }
    case 'check-and-mutate': {
      // Rows of the write table: a random existing-or-new key, read, filtered and written.
      const req = checkAndMutateRequest(c.tableName, new ValuePool(c.valueSize, c.seed).value(0));
      const lanes = Array.from({ length: c.inFlight }, () => t.frame(req.bytes));
      const rowBytes = logicalRowBytes(c.valueSize);
      return async (lane) => {
        const buf = lanes[lane] as Buffer;
        setKey(req, buf, t.headerBytes, 'w' + String(randomBelow(random, 1e9)).padStart(9, '0'));
        await t.call(lane, METHOD.checkAndMutateRow, buf);
        return { rows: 1, bytes: rowBytes };
      };
    }
    case 'increment': {
      const req = t.frame(incrementRequest(c.tableName, c.hotRow ?? 'hot', 'c'));
      return async (lane) => {
        const got = await t.call(lane, METHOD.readModifyWriteRow, req);
        if (got < 8) throw new Error(`an increment returned ${got} bytes, not the counter`);
        return { rows: 1, bytes: 8 };
      };
    }
    case 'scan': {
      const req = t.frame(fullScanRequest(c.tableName));
      return async (lane) => {
        const got = await t.call(lane, METHOD.readRows, req);
        if (got < c.rows * c.valueSize)
          throw new Error(`a full scan returned ${got} bytes, fewer than the ${c.rows} rows of ${c.valueSize} bytes loaded`);
        return { rows: c.rows, bytes: got };
      };
    }
  }
}
