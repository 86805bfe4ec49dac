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
