import { describe, expect, it } from 'vitest';
import { type Layer, type RawValue, resolveServeSettings } from './serve-settings.js';

const layer = (name: string, values: Record<string, RawValue>): Layer => ({
  describe: (setting) => `${name} ${setting}`,
  values: new Map(Object.entries(values)),
});

describe('serve settings: --insight', () => {
  it('records by default; on and off from any source, true and false from a config file, the higher source winning', () => {
    expect(resolveServeSettings([]).insight).toBe(true);
    expect(resolveServeSettings([layer('cli', { insight: 'off' })]).insight).toBe(false);
    expect(resolveServeSettings([layer('file', { insight: false })]).insight).toBe(false);
    expect(resolveServeSettings([layer('file', { insight: true })]).insight).toBe(true);
    expect(resolveServeSettings([layer('file', { insight: 'off' }), layer('env', { insight: 'on' })]).insight).toBe(true);
    expect(resolveServeSettings([layer('env', { insight: 'on' }), layer('cli', { insight: 'off' })]).insight).toBe(false);
  });

  it('names the source and the allowed values for anything else', () => {
    for (const bad of ['yes', '1', '', 'OFF', 0]) {
      expect(() => resolveServeSettings([layer('TABLETOP_INSIGHT', { insight: bad })])).toThrow(
        `TABLETOP_INSIGHT insight: must be on or off (got ${JSON.stringify(bad)})`,
      );
    }
  });
});
