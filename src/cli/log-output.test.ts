import { describe, expect, it } from 'vitest';
import { createLogOutput } from './log-output.js';

describe('log output', () => {
  it('json: one object per line with level name, time, message and fields; below the level nothing', async () => {
    const lines: string[] = [];
    const log = await createLogOutput({ level: 'info', format: 'json', write: (l) => lines.push(l) });
    log.debug?.('not shown');
    log.info('flushed tablet 1.2', { event: 'flushed', entries: 10 });
    log.warn('plain');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      msg: 'flushed tablet 1.2',
      event: 'flushed',
      entries: 10,
      pid: process.pid,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 'warn', msg: 'plain' });
  });

  it('text: a timestamp, the level and the message; fields are left out', async () => {
    const lines: string[] = [];
    const log = await createLogOutput({
      level: 'warn',
      format: 'text',
      write: (l) => lines.push(l),
      now: () => new Date('2026-11-26T12:00:00.000Z'),
    });
    log.info('not shown');
    log.warn('careful', { event: 'x' });
    log.error('broken');
    expect(lines).toEqual(['2026-11-26T12:00:00.000Z WARN  careful', '2026-11-26T12:00:00.000Z ERROR broken']);
  });

  it('silent logs nothing, in either format', async () => {
    const lines: string[] = [];
    for (const format of ['text', 'json'] as const) {
      const log = await createLogOutput({ level: 'silent', format, write: (l) => lines.push(l) });
      log.error('x');
      log.warn('y');
    }
    expect(lines).toEqual([]);
  });
});
