import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, formatRoute, parseRoute, viewWindow, type Route } from './routes.js';

describe('hash routes', () => {
  const routes: Route[] = [
    { page: 'projects' },
    { page: 'instance', project: '{{projectId}}', instance: 'dev' },
    { page: 'table', project: 'p', instance: 'i', table: 'a/b c' },
    { page: 'heatmap', project: 'p', instance: 'i', table: 't', view: DEFAULT_VIEW },
    { page: 'advice', project: 'p', instance: 'i', table: undefined },
    { page: 'advice', project: '{{projectId}}', instance: 'i', table: 'a/b c' },
    { page: 'simulate', project: 'p', instance: 'i', table: 't', what: { transform: 'salt:8@2,promote:2', nodes: 3 } },
    { page: 'simulate', project: 'p', instance: 'i', table: 't', what: { transform: 'delimiter=#,reverse:1', nodes: undefined } },
    { page: 'sql', project: 'p', instance: 'i', query: undefined },
    { page: 'sql', project: '{{projectId}}', instance: 'i', query: "SELECT * FROM `a-b`\nWHERE _key = 'x#1' AND v > @n -- 100%&?" },
    {
      page: 'heatmap',
      project: 'p',
      instance: 'i',
      table: 't',
      // A view with `from` does not carry its live window (the default comes back).
      view: {
        metric: 'write_ops',
        windowSeconds: DEFAULT_VIEW.windowSeconds,
        from: '2026-11-27T08:00:00.000Z',
        to: undefined,
        start: 'dHMj',
        end: 'dHMk+/8=',
      },
    },
  ];

  it('round-trip through format and parse', () => {
    for (const r of routes) {
      const parsed = parseRoute(formatRoute(r));
      if (r.page === 'heatmap')
        expect(parsed).toEqual({ ...r, view: { from: undefined, to: undefined, start: undefined, end: undefined, ...r.view } });
      else expect(parsed).toEqual(r);
    }
  });

  it('falls back to the defaults on unknown metrics and bad times, and names unknown pages', () => {
    const r = parseRoute('#/p/p/i/i/t/t/heatmap?metric=nope&window=-3&from=yesterday');
    expect(r).toMatchObject({ page: 'heatmap', view: { metric: 'ops', windowSeconds: 900, from: undefined } });
    expect(parseRoute('#/x/y')).toEqual({ page: 'unknown', hash: '#/x/y' });
    expect(parseRoute('#/p/p/i/i/t/t/nope')).toMatchObject({ page: 'unknown' });
    expect(parseRoute('')).toEqual({ page: 'projects' });
    expect(parseRoute('#/p/p/i/i/advice?table=')).toEqual({ page: 'advice', project: 'p', instance: 'i', table: undefined });
    expect(parseRoute('#/p/p/i/i/t/t/simulate?nodes=0')).toEqual({
      page: 'simulate',
      project: 'p',
      instance: 'i',
      table: 't',
      what: { transform: '', nodes: undefined },
    });
    expect(parseRoute('#/p/p/i/i/advice/x')).toMatchObject({ page: 'unknown' });
    expect(parseRoute('#/p/p/i/i/sql?query=')).toEqual({ page: 'sql', project: 'p', instance: 'i', query: undefined });
    expect(parseRoute('#/p/p/i/i/sql/x')).toMatchObject({ page: 'unknown' });
  });

  it('a view without `to` is live and ends now; without `from` it reaches back its window', () => {
    expect(viewWindow({ ...DEFAULT_VIEW, windowSeconds: 60 }, 1_000_000)).toEqual({ fromMillis: 940_000, toMillis: 1_000_000, live: true });
    expect(viewWindow({ ...DEFAULT_VIEW, from: '1970-01-01T00:00:01.000Z', to: '1970-01-01T00:00:03.000Z' }, 1_000_000)).toEqual({
      fromMillis: 1000,
      toMillis: 3000,
      live: false,
    });
  });

  it('advice and what-if routes read as people would type them', () => {
    expect(parseRoute('#/p/p/i/i/t/events/simulate?transform=salt:8,promote:2&nodes=4')).toMatchObject({
      what: { transform: 'salt:8,promote:2', nodes: 4 },
    });
    expect(formatRoute({ page: 'advice', project: 'p', instance: 'i', table: 'events' })).toBe('#/p/p/i/i/advice?table=events');
  });
});
