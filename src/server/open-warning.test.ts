import { describe, expect, it } from 'vitest';
import { isLoopbackOnly } from './open-warning.js';

describe('isLoopbackOnly', () => {
  it('accepts loopback addresses and names, and nothing else', async () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect([host, await isLoopbackOnly(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '[::]', '10.1.2.3', '192.168.0.1', 'no-such-host.invalid'])
      expect([host, await isLoopbackOnly(host)]).toEqual([host, false]);
  });
});
