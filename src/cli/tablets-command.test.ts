import { describe, expect, it } from 'vitest';
import { renderTablets } from './tablets-command.js';

const tablet = (over: Partial<Parameters<typeof renderTablets>[0][number]> = {}): Parameters<typeof renderTablets>[0][number] => ({
  tabletId: 't1.a',
  startKey: { printable: '' },
  endKey: { printable: 'm' },
  storedBytes: 2048,
  logicalBytes: 10 * 1024,
  rowCount: 120,
  estimates: [],
  nodes: [{ clusterId: 'dev-c1', node: 2 }],
  windowSeconds: 10,
  rates: { requestsPerSec: 12.5, rowsReadPerSec: 3, rowsWrittenPerSec: 250, servingMicrosPerSec: 123_000 },
  singleRowHotspot: null,
  ...over,
});

describe('tabletop tablets output', () => {
  it('shows stored and logical bytes, the node, and serving time as a percent of a node, with a legend', () => {
    const lines = renderTablets([tablet()]).split('\n');
    expect(lines[0]!.split(/\s{2,}/)).toEqual([
      'TABLET',
      'START KEY',
      'END KEY',
      'STORED',
      'LOGICAL',
      'ROWS',
      'NODE',
      'REQ/S',
      'ROWS READ/S',
      'ROWS WRITTEN/S',
      'SERVING',
    ]);
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['t1.a', '(start)', 'm', '2.0 KiB', '10.0 KiB', '120', '2', '12.5', '3.0', '250', '12.3%']);
    expect(lines.slice(2)).toEqual([
      '',
      'STORED: bytes in storage (compressed SSTables and memtables); LOGICAL: uncompressed keys and cells; rates over the last 10 s.',
      "SERVING: serving time as a percent of one node (the node model's CPU: time spent in the tablet's reads and writes).",
    ]);
  });

  it('marks estimates with ~ and says what they are; names the node of each cluster when there are several', () => {
    const out = renderTablets([
      tablet({ estimates: ['rowCount'], endKey: null }),
      tablet({
        tabletId: 't1.b',
        estimates: ['storedBytes', 'logicalBytes', 'rowCount'],
        nodes: [
          { clusterId: 'east', node: 0 },
          { clusterId: 'west', node: 4 },
        ],
      }),
    ]).split('\n');
    expect(out[1]!.split(/\s{2,}/).slice(2, 7)).toEqual(['(end)', '2.0 KiB', '10.0 KiB', '~120', '2']);
    expect(out[2]!.split(/\s{2,}/).slice(3, 7)).toEqual(['~2.0 KiB', '~10.0 KiB', '~120', 'east:0 west:4']);
    expect(out[out.length - 1]).toBe(
      '~ estimate: the durable engine counts a row once per SSTable and memtable holding it until compaction; split tablets estimate their share of shared files.',
    );
  });
});
