import { describe, expect, it } from 'vitest';
import { cbtErrors, cbtWith } from '../harness/cbt.js';
import { uniqueTableId } from '../harness/names.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';

/**
 * cbt refuses a row that crosses a ReadRows message boundary and, against an
 * emulator host, any message over 4 MiB (row-across-messages.test.ts), so
 * the largest row it can read is just under 4 MiB. A 3.5 MiB value, written
 * through the Node client, must come back whole.
 */
describe.each(selectedTargets())('cbt and a 3.5 MiB value (%s)', (kind) => {
  const ctx = useTarget(kind);

  it('lookup and read print the whole value', async () => {
    const id = uniqueTableId('cbt-large');
    const table = ctx.instance.table(id);
    await table.create({ families: ['cf'] });
    const size = 3.5 * 1024 * 1024;
    await table.insert([
      { key: 'big', data: { cf: { v: { value: Buffer.alloc(size, 'a'), timestamp: new Date(1) } } } },
      { key: 'next', data: { cf: { v: { value: 'small', timestamp: new Date(1) } } } },
    ]);
    const valueLine = `    "${'a'.repeat(size)}"`;
    const lookup = await cbtWith(ctx.target, {}, 'lookup', id, 'big');
    expect({ code: lookup.code, errors: cbtErrors(lookup.stderr).slice(0, 500) }).toEqual({ code: 0, errors: '' });
    const lines = lookup.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '----------------------------------------',
      'big',
      '  cf:v                                     @ 1970/01/01-00:00:00.001000',
    ]);
    expect(lines[3]?.length).toBe(valueLine.length);
    expect(lines[3] === valueLine).toBe(true);

    const read = await cbtWith(ctx.target, {}, 'read', id);
    expect(read.code).toBe(0);
    const keys = read.stdout.split('\n').filter((_, i, all) => all[i - 1] === '----------------------------------------');
    expect(keys).toEqual(['big', 'next']);
    expect(read.stdout.includes(valueLine)).toBe(true);
  }, 60_000);
});
