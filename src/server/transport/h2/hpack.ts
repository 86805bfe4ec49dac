/**
 * HPACK (RFC 7541), as much of it as a gRPC server needs:
 *
 *  - HpackDecoder: the whole decoder (static and dynamic tables, table size
 *    updates, Huffman-coded strings), one per connection, since the
 *    dynamic table is connection state;
 *  - the encoder side writes literals "without indexing" and static-table
 *    references only, so it keeps no state and response blocks can be built
 *    once (encodeHeaderBlock).
 *
 * Strings are read as latin1, so a header's length in characters is its
 * length in octets (what the table sizes count).
 */

export class HpackError extends Error {}

/** RFC 7541 Appendix A. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/**
 * The Huffman code of RFC 7541 Appendix B is canonical (codes of each length
 * are consecutive, in symbol order, after the shorter ones), so the length
 * of each symbol's code (symbols 0–256, 256 being EOS), here in base 36,
 * defines it entirely.
 */
const CODE_LENGTHS =
  'dnsssssssoussussssssssusssssssss6aacd68baa8b8666555666666678f6cad67777777777777777777777878djde6f56565666577666567655677777fbedskmkkmmmnmnnnnnonoomnonnnnlmnmnnomlkmmnnlnmmolmnnllmlnmnnkmmmnmmnqqkjmnmpqqqrrqopjlqrrqrollqqsrrrkoklmllnmmppooqnqrqqrrrrrsrrrrrqu';
const EOS = 256;

/** Per code length: the first code, how many codes, and where their symbols start in SYMBOLS. */
const MAX_LENGTH = 30;
const FIRST_CODE = new Int32Array(MAX_LENGTH + 2);
const COUNT = new Int32Array(MAX_LENGTH + 2);
const OFFSET = new Int32Array(MAX_LENGTH + 2);
const SYMBOLS = new Uint16Array(257);
{
  const lengths = Array.from(CODE_LENGTHS, (c) => parseInt(c, 36));
  if (lengths.length !== 257) throw new Error('HPACK Huffman table: expected 257 code lengths');
  for (const l of lengths) COUNT[l]!++;
  let code = 0;
  let offset = 0;
  for (let len = 1; len <= MAX_LENGTH; len++) {
    code = (code + COUNT[len - 1]!) * 2;
    FIRST_CODE[len] = code;
    OFFSET[len] = offset;
    offset += COUNT[len]!;
  }
  const next = OFFSET.slice();
  for (let sym = 0; sym < 257; sym++) SYMBOLS[next[lengths[sym]!]!++] = sym;
}

/** Decodes a Huffman-coded string (RFC 7541 §5.2): padding must be fewer than 8 one-bits, EOS is an error. */
export function huffmanDecode(buf: Uint8Array, start: number, end: number): string {
  let out = '';
  let code = 0;
  let len = 0;
  let ones = true; // the bits of the current partial code are all ones (a valid padding so far)
  for (let i = start; i < end; i++) {
    const byte = buf[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const b = (byte >> bit) & 1;
      code = code * 2 + b;
      len++;
      ones = ones && b === 1;
      const index = code - FIRST_CODE[len]!;
      if (index >= 0 && index < COUNT[len]!) {
        const sym = SYMBOLS[OFFSET[len]! + index]!;
        if (sym === EOS) throw new HpackError('Huffman-coded string contains EOS');
        out += String.fromCharCode(sym);
        code = 0;
        len = 0;
        ones = true;
      } else if (len >= MAX_LENGTH) {
        throw new HpackError('invalid Huffman code');
      }
    }
  }
  if (len >= 8 || !ones) throw new HpackError('invalid Huffman padding');
  return out;
}

type Entry = readonly [string, string];

/**
 * Decoded headers: names lowercase as sent; a repeated name gets an array of
 * its values in order. The object has no prototype, so names such as
 * "constructor" or "__proto__" are plain keys.
 */
export type HeaderMap = Record<string, string | string[]>;

export class HpackDecoder {
  /** Dynamic table, newest first. */
  private readonly table: Entry[] = [];
  private size = 0;
  private maxSize: number;
  private pos = 0;
  private buf: Uint8Array = new Uint8Array(0);

  /** `limit`: the SETTINGS_HEADER_TABLE_SIZE this side advertised (4096 unless changed). */
  constructor(private readonly limit = 4096) {
    this.maxSize = limit;
  }

  /**
   * The size of the last decoded list (names + values + 32 per field, as
   * SETTINGS_MAX_HEADER_LIST_SIZE counts it, RFC 9113 §6.5.2). A block is
   * always decoded whole, however large its list, since the dynamic table
   * must follow every field; the caller refuses the request instead.
   */
  listBytes = 0;

  /**
   * Why the last decoded list is not a well-formed request or trailer
   * section (RFC 9113 §8.2, §8.3), or undefined: an upper-case name, a
   * connection-specific field, TE other than "trailers", an unknown or
   * repeated pseudo-header, or one after a regular field. The caller resets
   * the stream (PROTOCOL_ERROR); the block was decoded whole all the same.
   */
  malformed: string | undefined = undefined;
  /** Pseudo-header fields in the last decoded list. */
  pseudoFields = 0;

  /**
   * Decodes one complete header block. Throws HpackError on any malformed
   * input (a connection error: the table state is then unknown).
   */
  decode(block: Uint8Array): HeaderMap {
    this.buf = block;
    this.pos = 0;
    const headers = Object.create(null) as HeaderMap;
    let listBytes = 0;
    let first = true;
    let pseudo = 0;
    let regular = false;
    let malformed: string | undefined;
    while (this.pos < block.length) {
      const b = block[this.pos]!;
      let entry: Entry;
      if (b & 0x80) {
        entry = this.entry(this.integer(7));
      } else if ((b & 0xe0) === 0x20) {
        // Dynamic table size update: only at the start of a block.
        if (!first) throw new HpackError('dynamic table size update after the first header field');
        const size = this.integer(5);
        if (size > this.limit) throw new HpackError(`dynamic table size update to ${size}, over the limit of ${this.limit}`);
        this.maxSize = size;
        this.evict(0);
        continue;
      } else {
        const indexing = (b & 0xc0) === 0x40;
        const index = this.integer(indexing ? 6 : 4);
        const name = index === 0 ? this.string() : this.entry(index)[0];
        entry = [name, this.string()];
        if (indexing) this.add(entry);
      }
      first = false;
      const [name, value] = entry;
      listBytes += name.length + value.length + 32;
      if (name.charCodeAt(0) === 0x3a) {
        pseudo++;
        if (regular) malformed ??= `pseudo-header ${name} after a regular field`;
        else if (!REQUEST_PSEUDO.has(name)) malformed ??= `pseudo-header ${name} is not one of a request's`;
        else if (headers[name] !== undefined) malformed ??= `pseudo-header ${name} repeated`;
      } else {
        regular = true;
        if (/[A-Z]/.test(name)) malformed ??= `upper-case header name ${name}`;
        else if (CONNECTION_SPECIFIC.has(name)) malformed ??= `connection-specific header ${name}`;
        else if (name === 'te' && value !== 'trailers') malformed ??= `te: ${value} (only "trailers" is allowed)`;
      }
      const had = headers[name];
      if (had === undefined) headers[name] = value;
      else if (typeof had === 'string') headers[name] = [had, value];
      else had.push(value);
    }
    this.buf = EMPTY;
    this.listBytes = listBytes;
    this.pseudoFields = pseudo;
    this.malformed = malformed;
    return headers;
  }

  private entry(index: number): Entry {
    if (index === 0) throw new HpackError('header index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const e = this.table[index - STATIC_TABLE.length - 1];
    if (e === undefined) throw new HpackError(`header index ${index} is past the end of the table`);
    return e;
  }

  private add(entry: Entry): void {
    const size = entry[0].length + entry[1].length + 32;
    this.evict(size);
    // An entry larger than the whole table empties it and is not added (RFC 7541 §4.4).
    if (size > this.maxSize) return;
    this.table.unshift(entry);
    this.size += size;
  }

  /** Evicts the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.size + room > this.maxSize && this.table.length > 0) {
      const e = this.table.pop()!;
      this.size -= e[0].length + e[1].length + 32;
    }
  }

  /** An integer with an N-bit prefix (RFC 7541 §5.1). */
  private integer(prefixBits: number): number {
    const buf = this.buf;
    const max = (1 << prefixBits) - 1;
    let v = buf[this.pos++]! & max;
    if (v < max) return v;
    let shift = 0;
    for (;;) {
      const b = buf[this.pos++];
      if (b === undefined) throw new HpackError('integer runs past the end of the block');
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
      shift += 7;
      if (shift > 28) throw new HpackError('integer too large');
    }
    return v;
  }

  private string(): string {
    const buf = this.buf;
    if (this.pos >= buf.length) throw new HpackError('string runs past the end of the block');
    const huffman = (buf[this.pos]! & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    const end = start + length;
    if (end > buf.length) throw new HpackError('string runs past the end of the block');
    this.pos = end;
    if (huffman) return huffmanDecode(buf, start, end);
    return Buffer.from(buf.buffer, buf.byteOffset + start, length).toString('latin1');
  }
}

const EMPTY = new Uint8Array(0);
/** The pseudo-headers a request may carry (RFC 9113 §8.3.1; :protocol is for extended CONNECT, which we do not offer). */
const REQUEST_PSEUDO = new Set([':method', ':scheme', ':path', ':authority']);
/** Fields that belong to HTTP/1.1 connections and make an HTTP/2 message malformed (RFC 9113 §8.2.2). */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** Appends an integer with an N-bit prefix, the prefix byte's high bits being `flags`. */
function pushInteger(out: number[], flags: number, prefixBits: number, v: number): void {
  const max = (1 << prefixBits) - 1;
  if (v < max) {
    out.push(flags | v);
    return;
  }
  out.push(flags | max);
  v -= max;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

function pushString(out: number[], s: string): void {
  pushInteger(out, 0, 7, s.length);
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 0xff);
}

/**
 * A header block of the given fields, with no dynamic table: `:status` values
 * in the static table are indexed, names in the static table are referenced,
 * and everything else is a literal without indexing (no Huffman coding).
 * Names must be lowercase; values latin1.
 */
export function encodeHeaderBlock(fields: readonly (readonly [string, string])[]): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    const exact = STATIC_TABLE.findIndex(([n, v]) => n === name && v === value && v !== '');
    if (exact >= 0) {
      pushInteger(out, 0x80, 7, exact + 1);
      continue;
    }
    const byName = STATIC_TABLE.findIndex(([n]) => n === name);
    if (byName >= 0) pushInteger(out, 0, 4, byName + 1);
    else {
      out.push(0);
      pushString(out, name);
    }
    pushString(out, value);
  }
  return Buffer.from(out);
}
