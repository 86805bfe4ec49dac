/**
 * The `grpc-message` trailer (PROTOCOL-HTTP2.md, "Status-Message"): the UTF-8
 * bytes of the message, each byte outside 0x20–0x7E and every '%' written as
 * "%XX" (upper-case hex).
 *
 * e.g. `bad key "k%1" — é` becomes `bad key "k%251" %E2%80%94 %C3%A9`.
 */

const HEX = '0123456789ABCDEF';

export function percentEncodeStatusMessage(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${HEX[byte >> 4]!}${HEX[byte & 15]!}` : String.fromCharCode(byte);
  }
  return out;
}

/**
 * Status messages longer than this are cut, with a note of what was left out. Messages quote what the
 * request named (a name, a regex), which may be tens of KiB; in the `grpc-message` trailer, percent-encoded,
 * that exceeds what clients accept in a header list (Node's HTTP/2 client, at 64 KiB, dropped the
 * connection, and every call on it hung until its deadline).
 */
export const MAX_STATUS_MESSAGE_CHARS = 2000;

/** `message`, cut to MAX_STATUS_MESSAGE_CHARS (never inside a surrogate pair). */
export function boundedStatusMessage(message: string): string {
  if (message.length <= MAX_STATUS_MESSAGE_CHARS) return message;
  let cut = MAX_STATUS_MESSAGE_CHARS - 40;
  const c = message.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return `${message.slice(0, cut)}… (${message.length - cut} more characters)`;
}
