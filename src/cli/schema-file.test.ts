import { describe, expect, it } from 'vitest';
import { SchemaFileError, parseSchema, renderSchema } from './schema-file.js';

describe('schema files', () => {
  it('reads and writes an instance file: defaults filled in, keys as text or base64, splits sorted', () => {
    const doc = parseSchema(
      JSON.stringify({
        schema: 'tabletop/v1',
        tables: {
          t: {
            families: { cf: {}, hits: { type: 'hll(int64)', gc: 'maxage=30d' } },
            splits: ['m', { base64: 'AP8=' }, 'm', 'é'],
            authorizedViews: { v: { rowPrefixes: ['b', 'a'], families: { cf: { qualifierPrefixes: [''] } } } },
          },
        },
      }),
    );
    expect(JSON.parse(renderSchema(doc))).toEqual({
      schema: 'tabletop/v1',
      tables: {
        t: {
          families: { cf: { gc: 'never' }, hits: { gc: 'maxage=30d', type: 'hll(int64)' } },
          deletionProtection: false,
          splits: [{ base64: 'AP8=' }, 'm', 'é'],
          authorizedViews: {
            v: { rowPrefixes: ['a', 'b'], families: { cf: { qualifiers: [], qualifierPrefixes: [''] } }, deletionProtection: false },
          },
        },
      },
    });
    expect(renderSchema(parseSchema(renderSchema(doc)))).toBe(renderSchema(doc));
  });

  it('reads a table file, without views when it names none', () => {
    const doc = parseSchema('{"schema":"tabletop/v1","table":"orders","families":{"cf":{"gc":"maxversions=1"}},"deletionProtection":true}');
    expect(doc.scope).toBe('table');
    if (doc.scope !== 'table') return;
    expect(doc.tableId).toBe('orders');
    expect(doc.table.views).toBeUndefined();
    expect(doc.table.deletionProtection).toBe(true);
    expect(renderSchema(doc)).toBe(
      '{\n  "schema": "tabletop/v1",\n  "table": "orders",\n  "families": {\n    "cf": {\n      "gc": "maxversions=1"\n    }\n  },\n  "deletionProtection": true,\n  "splits": []\n}\n',
    );
  });

  it.each([
    ['{', /^not JSON: /],
    ['{"schema":"tabletop/v2","tables":{}}', /"schema" must be "tabletop\/v1"/],
    ['{"schema":"tabletop/v1"}', /give either "tables" \(an instance\) or "table" \(one table\)/],
    ['{"schema":"tabletop/v1","tables":{"bad id!":{}}}', /tables\.bad id!: "bad id!" is not a table id/],
    ['{"schema":"tabletop/v1","tables":{"t":{"famlies":{}}}}', /tables\.t: unknown field "famlies" \(known: families, /],
    [
      '{"schema":"tabletop/v1","tables":{"t":{"families":{"cf":{"gc":"maxversions=1 maxage=1d"}}}}}',
      /tables\.t\.families\.cf\.gc: GC rule /,
    ],
    [
      '{"schema":"tabletop/v1","tables":{"t":{"families":{"cf":{"type":"sum(bytes)"}}}}}',
      /tables\.t\.families\.cf\.type: "sum\(bytes\)" is not a family type/,
    ],
    ['{"schema":"tabletop/v1","tables":{"t":{"families":{"c f":{}}}}}', /"c f" is not a column family name/],
    ['{"schema":"tabletop/v1","tables":{"t":{"splits":[""]}}}', /a split key must not be empty/],
    [
      '{"schema":"tabletop/v1","tables":{"t":{"splits":[{"hex":"00"}]}}}',
      /tables\.t\.splits\[0\]: a key is a string \(UTF-8\) or \{ "base64": "..." \}/,
    ],
    ['{"schema":"tabletop/v1","tables":{"t":{"deletionProtection":"yes"}}}', /deletionProtection must be true or false/],
    [
      '{"schema":"tabletop/v1","table":"t","authorizedViews":{"v":{"rowPrefixes":"a"}}}',
      /t\.authorizedViews\.v\.rowPrefixes must be an array/,
    ],
  ])('refuses %s, naming the place', (text, why) => {
    expect(() => parseSchema(text)).toThrow(SchemaFileError);
    expect(() => parseSchema(text)).toThrow(why);
  });
});
