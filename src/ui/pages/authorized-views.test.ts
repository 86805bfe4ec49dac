import { describe, expect, it } from 'vitest';
import type { AuthorizedViewJson } from '../api.js';
import { columnsText, rowsText } from './authorized-views.js';

const key = (printable: string) => ({ base64: Buffer.from(printable).toString('base64'), printable });
const view = (rowPrefixes: string[], familySubsets: AuthorizedViewJson['familySubsets']): AuthorizedViewJson => ({
  id: 'v',
  name: 'projects/p/instances/i/tables/t/authorizedViews/v',
  deletionProtection: false,
  rowPrefixes: rowPrefixes.map(key),
  familySubsets,
});

describe('authorized view summaries', () => {
  it('name the rows: all, none, or the prefixes', () => {
    expect(rowsText(view(['a#', ''], []))).toBe('all rows');
    expect(rowsText(view([], []))).toBe('none');
    expect(rowsText(view(['a#', 'b#'], []))).toBe('a#*, b#*');
  });

  it('name the columns per family: the whole family, qualifiers and prefixes, or none', () => {
    expect(columnsText(view([''], []))).toBe('none');
    expect(
      columnsText(
        view(
          [''],
          [
            { family: 'cf', qualifiers: [key('name')], qualifierPrefixes: [key('tel')] },
            { family: 'all', qualifiers: [], qualifierPrefixes: [key('')] },
            { family: 'empty', qualifiers: [], qualifierPrefixes: [] },
          ],
        ),
      ),
    ).toBe('cf: name, tel*; all: *; empty: none');
  });
});
