import { describe, expect, it } from 'vitest';
import { MAX_STATUS_MESSAGE_CHARS, boundedStatusMessage, percentEncodeStatusMessage } from './status-message.js';

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

describe('boundedStatusMessage', () => {
  it('keeps messages up to the limit, and cuts longer ones with a note, never inside a surrogate pair', () => {
    expect(boundedStatusMessage('short')).toBe('short');
    const exact = 'x'.repeat(MAX_STATUS_MESSAGE_CHARS);
    expect(boundedStatusMessage(exact)).toBe(exact);
    const long = `Invalid table name: "${'é😀'.repeat(30_000)}"`;
    const cut = boundedStatusMessage(long);
    expect(cut.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    expect(cut).toMatch(/… \(\d+ more characters\)$/);
    expect(long.startsWith(cut.slice(0, cut.indexOf('…')))).toBe(true);
    // Valid UTF-16: encoding and decoding give it back.
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });
});
