import type { Row, Table } from '@google-cloud/bigtable';
import { beforeAll, describe, expect, it } from 'vitest';
import { keySchema, reversedDomain, reversedTimestamp, salt, string, toClientRange, toRowRange } from '../../src/index.js';
import { uniqueTableId } from '../harness/names.js';
import { assembleCells, rawReadRows } from '../harness/raw.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

/**
 * The row-key builder end to end: rows written through the official Node client with the builder's
 * keys, read back by its ranges (the client's `ranges`, and raw RowRanges), on tabletop and on
 * Google's emulator alike: exactly the expected rows, in key order.
 */

const sensors = keySchema({ delimiter: '#' }, [salt('bucket', 8, ['sensor']), string('sensor'), reversedTimestamp('at')]);
const events = keySchema({ delimiter: '#' }, [salt('shard', 4), reversedTimestamp('at'), string('event')]);
const pages = keySchema({ delimiter: '#' }, [reversedDomain('site'), string('path')]);

const T0 = Date.parse('2023-05-01T12:00:00Z');
const MINUTE = 60_000;
// Sensor ids that stress the escaping: the delimiter, the escape, a space, Unicode beyond the BMP.
const SENSORS = ['sensor123', 'sensor12', 'sensor1234', 'a#b', 'a$b', 'a b', 'π-😀', ''];
const SITES = ['www.example.com', 'example.com', 'mail.example.com', 'www.example.org', 'example.co', 'a.b.example.com'];

async function read(table: Table, ranges: { start?: unknown; end?: unknown }[]): Promise<string[]> {
  const [rows] = await table.getRows({ ranges: ranges as never });
  return rows.map((r: Row) => r.id);
}

describe.each(selectedTargets())('row keys from the key builder through the Node client (%s)', (kind) => {
  const ctx = useTarget(kind);
  let table: Table;
  const written: { sensor: string; at: Date }[] = [];
  const eventRows: { at: Date; event: string }[] = [];

  beforeAll(async () => {
    table = ctx.instance.table(uniqueTableId('row-keys'));
    await table.create({ families: ['cf'] });
    for (const sensor of SENSORS) for (let m = 0; m < 12; m++) written.push({ sensor, at: new Date(T0 + m * MINUTE) });
    for (let m = 0; m < 40; m++) eventRows.push({ at: new Date(T0 + m * 1000), event: `e${m % 7}` });
    const keys = [
      ...written.map((v) => sensors.encode(v)),
      ...eventRows.map((v) => `events|${events.encode(v)}`),
      ...SITES.map((site) => `pages|${pages.encode({ site, path: '/' })}`),
    ];
    await table.insert(keys.map((key) => ({ key, data: { cf: { q: 'v' } } })));
  });

  it("reads one sensor's time window, latest first, and nothing of its neighbours (sensor12, sensor1234)", async () => {
    const from = new Date(T0 + 3 * MINUTE);
    const to = new Date(T0 + 9 * MINUTE);
    for (const sensor of SENSORS) {
      const ids = await read(table, [toClientRange(sensors.range({ sensor, at: { from, to } }))]);
      const expected = written
        .filter((w) => w.sensor === sensor && w.at >= from && w.at < to)
        .sort((a, b) => b.at.getTime() - a.at.getTime())
        .map((w) => sensors.encode(w));
      expect(ids, sensor).toEqual(expected);
      expect(ids.map((id) => sensors.decode(id).sensor)).toEqual(expected.map(() => sensor));
      // The whole sensor, by prefix, with the client's own `prefix` option too.
      const all = written.filter((w) => w.sensor === sensor).length;
      expect(await read(table, [toClientRange(sensors.range({ sensor }))])).toHaveLength(all);
      const [byPrefix] = await table.getRows({ prefix: sensors.prefix({ sensor }) });
      expect(byPrefix).toHaveLength(all);
    }
    // The newest row of a sensor is the first of its range.
    const [latest] = await table.getRows({ ranges: [toClientRange(sensors.range({ sensor: 'sensor123' }))] as never, limit: 1 });
    expect(sensors.decode(latest[0]!.id)).toEqual({ bucket: 5, sensor: 'sensor123', at: new Date(T0 + 11 * MINUTE) });
  });

  it('fans a time window out over every salt bucket: one range per bucket, exactly the rows in the window', async () => {
    // The events sit under a table-level prefix here; the builder's ranges go after it.
    const under = (r: { start: string; end: string | undefined }) => ({
      start: `events|${r.start}`,
      end: `events|${r.end ?? '\u{10ffff}'}`,
    });
    const from = new Date(T0 + 10_000);
    const to = new Date(T0 + 25_000);
    const ranges = events.ranges({ at: { from, to } });
    expect(ranges).toHaveLength(4);
    const ids = await read(
      table,
      ranges.map((r) => toClientRange(under(r))),
    );
    const decoded = ids.map((id) => events.decode(id.slice('events|'.length)));
    const expected = eventRows.filter((e) => e.at >= from && e.at < to);
    expect(decoded).toHaveLength(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected.map((e) => `events|${events.encode(e)}`)));
    // In key order: bucket by bucket, each latest first.
    for (let i = 1; i < decoded.length; i++) {
      const [a, b] = [decoded[i - 1]!, decoded[i]!];
      expect(a.shard < b.shard || (a.shard === b.shard && a.at.getTime() >= b.at.getTime())).toBe(true);
    }
    // Every bucket is read: the window's rows are spread over more than one.
    expect(new Set(decoded.map((d) => d.shard)).size).toBeGreaterThan(1);
  });

  it("reads a domain's pages and its subdomains' (reversed domains), through a raw Bigtable RowRange too", async () => {
    const under = (r: { start: string; end: string | undefined }) => ({ start: `pages|${r.start}`, end: `pages|${r.end}` });
    expect(await read(table, [toClientRange(under(pages.range({ site: 'example.com' })))])).toEqual(['pages|com.example#/']);
    // The domain, then its subdomains in reversed order; not example.co, example.org or ...
    const ids = await read(
      table,
      pages.ranges({ site: { subdomainsOf: 'example.com' } }).map((r) => toClientRange(under(r))),
    );
    expect(ids.map((id) => pages.decode(id.slice('pages|'.length)).site)).toEqual([
      'example.com',
      'a.b.example.com',
      'mail.example.com',
      'www.example.com',
    ]);
    const cells = assembleCells(
      await rawReadRows(ctx.client, {
        tableName: table.name,
        rows: { rowRanges: pages.ranges({ site: { subdomainsOf: 'example.com' } }).map((r) => toRowRange(under(r))) },
      }),
    );
    expect(cells.map((c) => c.key.toString('utf8'))).toEqual(ids);
  });

  it('writes and reads back keys whose strings hold the delimiter, the escape and Unicode, byte for byte', async () => {
    for (const sensor of SENSORS) {
      const key = sensors.encode({ sensor, at: new Date(T0) });
      const [row] = await table.row(key).get();
      expect(row.id).toBe(key);
      expect(sensors.decode(row.id)).toEqual({ bucket: sensors.bucket('bucket', { sensor, at: T0 }), sensor, at: new Date(T0) });
      const raw = assembleCells(
        await rawReadRows(ctx.client, { tableName: table.name, rows: { rowKeys: [sensors.encodeBytes({ sensor, at: T0 })] } }),
      );
      expect(raw.map((c) => c.key)).toEqual([sensors.encodeBytes({ sensor, at: T0 })]);
    }
  });
});
