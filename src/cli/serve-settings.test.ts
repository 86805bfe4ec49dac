import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { defaultBackgroundThreads, type Layer, type RawValue, resolveServeSettings } from './serve-settings.js';
import { DEFAULT_CONFIG } from '../config.js';

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

describe('serve settings: --background-threads', () => {
  it('defaults to two fewer than the cores, 0 to 4; any number up to 64 from any source', () => {
    expect(defaultBackgroundThreads()).toBe(Math.max(0, Math.min(4, availableParallelism() - 2)));
    expect(resolveServeSettings([]).config.backgroundThreads).toBe(defaultBackgroundThreads());
    expect(resolveServeSettings([layer('cli', { 'background-threads': '0' })]).config.backgroundThreads).toBe(0);
    expect(
      resolveServeSettings([layer('file', { 'background-threads': 6 }), layer('cli', { 'background-threads': '2' })]).config
        .backgroundThreads,
    ).toBe(2);
    for (const bad of ['-1', 'many', '1.5', '65']) {
      expect(() => resolveServeSettings([layer('cli', { 'background-threads': bad })])).toThrow(/^cli background-threads: /);
    }
  });
});

describe('serve settings: --background-slice', () => {
  it('is 0.25 ms by default; any number of milliseconds from 0.05 to 1000 from any source', () => {
    expect(resolveServeSettings([]).config.backgroundSliceMillis ?? DEFAULT_CONFIG.backgroundSliceMillis).toBe(0.25);
    expect(resolveServeSettings([layer('cli', { 'background-slice': '0.25' })]).config.backgroundSliceMillis).toBe(0.25);
    expect(resolveServeSettings([layer('file', { 'background-slice': 2 })]).config.backgroundSliceMillis).toBe(2);
    for (const bad of ['0', '-1', 'soon', '0.01', '5000']) {
      expect(() => resolveServeSettings([layer('cli', { 'background-slice': bad })])).toThrow(/^cli background-slice: /);
    }
  });
});

describe('serve settings: security', () => {
  it('is off, in plain text, by default; takes TLS files, --auth and OIDC from any source', () => {
    const d = resolveServeSettings([]);
    expect([d.auth, d.tlsCert, d.tlsKey, d.insecure, d.authFile]).toEqual([false, undefined, undefined, false, undefined]);
    const s = resolveServeSettings([
      layer('file', { 'tls-cert': 'c.pem', 'tls-key': 'k.pem', auth: true }),
      layer('env', { 'oidc-jwks': 'j.json', 'oidc-issuer': 'iss', 'oidc-audience': 'aud' }),
      layer('cli', { 'tls-client-ca': 'ca.pem', insecure: '' }),
    ]);
    expect(s).toMatchObject({ tlsCert: 'c.pem', tlsKey: 'k.pem', tlsClientCa: 'ca.pem', auth: true, oidcJwks: 'j.json', insecure: true });
  });

  it('refuses settings that only work together, given apart', () => {
    for (const [values, message] of [
      [{ 'tls-cert': 'c.pem' }, '--tls-cert and --tls-key go together'],
      [{ 'tls-key': 'k.pem' }, '--tls-cert and --tls-key go together'],
      [{ 'tls-client-ca': 'ca.pem' }, '--tls-client-ca (mutual TLS) needs TLS'],
      [{ 'oidc-jwks': 'j.json', 'oidc-issuer': 'iss' }, 'give all three'],
      [{ auth: 'on', 'in-memory': true }, '--auth on with --in-memory needs --auth-file'],
      [{ 'tls-cert': '' }, 'cli tls-cert: must not be empty'],
    ] as const) {
      expect(() => resolveServeSettings([layer('cli', values)])).toThrow(message);
    }
    expect(resolveServeSettings([layer('cli', { auth: 'on', 'in-memory': true, 'auth-file': 'a.json' })]).authFile).toBe('a.json');
  });
});

describe('serve settings: limits', () => {
  it("keeps the server's defaults unless told; takes each limit from any source", () => {
    expect(resolveServeSettings([]).limits).toEqual({});
    const s = resolveServeSettings([
      layer('file', { 'max-connections': 100, 'response-buffer': '64MiB', 'idle-timeout': '6h' }),
      layer('env', { 'max-streams': '50', 'stream-buffer': '256KiB', 'http-max-connections': '8' }),
      layer('cli', { 'max-connections': '200' }),
    ]);
    expect(s.limits).toEqual({
      maxConnections: 200,
      maxConcurrentStreams: 50,
      writeHighWaterBytes: 256 * 1024,
      maxBufferedResponseBytes: 64 * 1024 * 1024,
      maxConnectionIdleMillis: 6 * 60 * 60 * 1000,
      httpMaxConnections: 8,
    });
  });

  it('refuses zero, negative and malformed limits, naming the source', () => {
    for (const [name, bad] of [
      ['max-connections', '0'],
      ['max-streams', '-3'],
      ['stream-buffer', '0'],
      ['response-buffer', 'lots'],
      ['idle-timeout', '0'],
      ['http-max-connections', '1.5'],
    ] as const) {
      expect(() => resolveServeSettings([layer('cli', { [name]: bad })])).toThrow(new RegExp(`^cli ${name}: `));
    }
  });
});
