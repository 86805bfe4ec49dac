import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeRecyclableRecord, encodeSyncMarker } from '../wal/log-format.js';
import { encodeBatch } from './wal-batch.js';

describe('docs/format/commit-log.md', () => {
  it('shows the bytes the encoders really produce for its worked example', () => {
    const batch = encodeBatch(
      't1.2',
      [
        {
          key: 'row1',
          ops: [
            { kind: 'put', family: 'cf', qualifier: 'q', timestamp: 1000, value: Buffer.from('hi') },
            { kind: 'deleteColumn', family: 'cf', qualifier: 'old', start: 0, end: undefined },
          ],
        },
      ],
      7,
    );
    const hex = (b: Buffer): string => b.toString('hex').replace(/(..)(?!$)/g, '$1 ');
    const doc = readFileSync(new URL('../../../docs/format/commit-log.md', import.meta.url), 'utf8');
    expect(doc).toContain(`\n${hex(encodeRecyclableRecord(batch.payload, 12))}\n`);
    expect(doc).toContain(`\n${hex(encodeSyncMarker(4096, 12))}\n`);
  });
});
