import { describe, expect, it } from 'vitest';
import { percentEncodeStatusMessage } from './status-message.js';

describe('percentEncodeStatusMessage', () => {
  const cases: [string, string][] = [
    ['Table not found: projects/p/instances/i/tables/t', 'Table not found: projects/p/instances/i/tables/t'],
    ['100% sure', '100%25 sure'],
    ['bad key "k%1" — é', 'bad key "k%251" %E2%80%94 %C3%A9'],
    ['line\nbreak\ttab', 'line%0Abreak%09tab'],
    ['~ and space stay', '~ and space stay'],
    ['\x7f', '%7F'],
    ['', ''],
  ];
  for (const [message, encoded] of cases) {
    it(JSON.stringify(message), () => {
      expect(percentEncodeStatusMessage(message)).toBe(encoded);
      expect(decodeURIComponent(encoded)).toBe(message);
    });
  }
});
