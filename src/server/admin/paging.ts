import { invalidArgument } from '../../model/errors.js';

/**
 * Paging for List calls: items sorted by `key`; the page token is the
 * base64url of the last key returned. A page size of 0 (or absent) returns
 * everything in one page.
 */
export function page<T>(
  items: readonly T[],
  key: (t: T) => string,
  pageSize: number | null | undefined,
  pageToken: string | null | undefined,
): { items: T[]; nextPageToken: string } {
  const size = pageSize ?? 0;
  if (!Number.isInteger(size) || size < 0) throw invalidArgument(`page_size must not be negative (got ${size})`);
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  let start = 0;
  if (pageToken) {
    const after = Buffer.from(pageToken, 'base64url').toString('utf8');
    if (Buffer.from(after, 'utf8').toString('base64url') !== pageToken) throw invalidArgument(`Invalid page_token "${pageToken}"`);
    start = sorted.findIndex((t) => key(t) > after);
    if (start < 0) start = sorted.length;
  }
  if (size === 0) return { items: sorted.slice(start), nextPageToken: '' };
  const slice = sorted.slice(start, start + size);
  const more = start + size < sorted.length;
  return {
    items: slice,
    nextPageToken: more && slice.length > 0 ? Buffer.from(key(slice[slice.length - 1]!), 'utf8').toString('base64url') : '',
  };
}
