import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openFilesLimit, openFilesWarning } from './fd-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             95345                95345                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('the open-files limit', () => {
  it('reads the soft limit, and says nothing when it is unlimited or unknown', () => {
    expect(openFilesLimit(LIMITS)).toBe(1024);
    expect(openFilesLimit(LIMITS.replace('1024 ', 'unlimited '))).toBeUndefined();
    expect(openFilesLimit('')).toBeUndefined();
  });

  it('is raised to the hard limit when node starts (Linux)', () => {
    const text = readFileSync('/proc/self/limits', 'latin1');
    const [soft, hard] = text
      .split('\n')
      .find((l) => l.startsWith('Max open files'))!
      .slice('Max open files'.length)
      .trim()
      .split(/\s+/);
    expect(soft).toBe(hard);
    expect(openFilesLimit()).toBe(soft === 'unlimited' ? undefined : Number(soft));
  });

  it('warns when the connection caps can hold more than the limit allows, naming how to raise it', () => {
    expect(openFilesWarning(1024, 4096, 512)).toMatch(
      /may open only 1024 files, fewer than the 4864 that 4096 gRPC and 512 HTTP connections .*\(EMFILE\).*ulimit -Hn 4864.*LimitNOFILE=4864/,
    );
    expect(openFilesWarning(524288, 4096, 512)).toBeUndefined();
    expect(openFilesWarning(undefined, 4096, 512)).toBeUndefined();
  });
});
