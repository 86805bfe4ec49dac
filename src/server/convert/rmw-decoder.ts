import type { PReadModifyWriteRowRequest, PReadModifyWriteRule } from './proto-types.js';
import {
  type Reader,
  WIRE_LEN,
  WIRE_VARINT,
  createReader,
  readInt64BigInt,
  readKey,
  readLengthEnd,
  readString,
  skipField,
} from './wire.js';

/**
 * Hand-written decoder of google.bigtable.v2.ReadModifyWriteRowRequest (a hot
 * unary request: every increment sends one) into the same object the
 * generic loader produces (proto-loader options in ../protos.ts: int64 as
 * decimal strings, bytes as Buffers, unset fields absent, the `rule` oneof
 * named), so the conversion and its validation stay in one place
 * (data-requests.ts). Plugged in as the `requestDeserialize` of the method.
 *
 *   ReadModifyWriteRowRequest := table_name(1) string | row_key(2) bytes | rules(3) ReadModifyWriteRule*
 *                              | app_profile_id(4) string | authorized_view_name(6) string
 *   ReadModifyWriteRule       := family_name(1) string | column_qualifier(2) bytes
 *                              | append_value(3) bytes | increment_amount(4) int64   (oneof rule: last wins)
 *
 * Unknown fields, and known fields with an unexpected wire type, are skipped;
 * truncated or malformed bytes throw (reported as INVALID_ARGUMENT).
 */
export function decodeReadModifyWriteRowRequest(buf: Uint8Array): PReadModifyWriteRowRequest {
  const out: PReadModifyWriteRowRequest = {};
  const r = createReader(buf);
  while (r.pos < r.len) {
    const k = readKey(r);
    if (k === TABLE_NAME) out.tableName = readString(r);
    else if (k === ROW_KEY) out.rowKey = readBytes(r);
    else if (k === RULES) (out.rules ??= []).push(readRule(r, readLengthEnd(r)));
    else if (k === APP_PROFILE_ID) out.appProfileId = readString(r);
    else if (k === AUTHORIZED_VIEW_NAME) out.authorizedViewName = readString(r);
    else skipField(r, k);
  }
  return out;
}

const len = (field: number): number => (field << 3) | WIRE_LEN;
const TABLE_NAME = len(1);
const ROW_KEY = len(2);
const RULES = len(3);
const APP_PROFILE_ID = len(4);
const AUTHORIZED_VIEW_NAME = len(6);
const FAMILY_NAME = len(1);
const COLUMN_QUALIFIER = len(2);
const APPEND_VALUE = len(3);
const INCREMENT_AMOUNT = (4 << 3) | WIRE_VARINT;

function readRule(r: Reader, end: number): PReadModifyWriteRule {
  const rule: PReadModifyWriteRule = {};
  while (r.pos < end) {
    const k = readKey(r);
    if (k === FAMILY_NAME) rule.familyName = readString(r);
    else if (k === COLUMN_QUALIFIER) rule.columnQualifier = readBytes(r);
    else if (k === APPEND_VALUE) {
      delete rule.incrementAmount;
      rule.appendValue = readBytes(r);
      rule.rule = 'appendValue';
    } else if (k === INCREMENT_AMOUNT) {
      delete rule.appendValue;
      rule.incrementAmount = String(readInt64BigInt(r));
      rule.rule = 'incrementAmount';
    } else skipField(r, k);
  }
  if (r.pos !== end) throw new Error('a ReadModifyWriteRule overruns its length');
  return rule;
}

/** A view of the request (the conversion turns keys and qualifiers into strings and copies values). */
function readBytes(r: Reader): Buffer {
  const end = readLengthEnd(r);
  const b = Buffer.from(r.buf.buffer, r.buf.byteOffset + r.pos, end - r.pos);
  r.pos = end;
  return b;
}
