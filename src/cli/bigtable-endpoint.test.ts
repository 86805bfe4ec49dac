import { describe, expect, it } from 'vitest';
import { TableSpecError, describeSpec, parseTableSpec } from './bigtable-endpoint.js';

describe('table specs', () => {
  it('read a server, TLS, the emulator variable or Cloud Bigtable', () => {
    expect(parseTableSpec('localhost:8086/projects/p/instances/i/tables/t')).toEqual({
      endpoint: 'localhost:8086',
      tls: false,
      project: 'p',
      instance: 'i',
      table: 't',
    });
    expect(parseTableSpec('grpcs://db.example:443/projects/p/instances/i/tables/t')).toMatchObject({
      endpoint: 'db.example:443',
      tls: true,
    });
    expect(parseTableSpec('[::1]:9000/projects/p/instances/i/tables/t').endpoint).toBe('[::1]:9000');
    expect(parseTableSpec('projects/p/instances/i/tables/t', { BIGTABLE_EMULATOR_HOST: 'localhost:9035' }).endpoint).toBe('localhost:9035');
    const cloud = parseTableSpec('projects/p/instances/i/tables/t', {});
    expect(cloud.endpoint).toBeUndefined();
    expect(describeSpec(cloud)).toBe('Cloud Bigtable/projects/p/instances/i/tables/t');
  });

  it('refuse what is not a table', () => {
    expect(() => parseTableSpec('localhost/projects/p/instances/i/tables/t')).toThrow(TableSpecError);
    expect(() => parseTableSpec('localhost:1/projects/p/instances/i')).toThrow(
      'give a table as [HOST:PORT/]projects/P/instances/I/tables/T',
    );
    expect(() => parseTableSpec('localhost:1/projects/p/instances/i/tables/t/x')).toThrow(TableSpecError);
  });
});
