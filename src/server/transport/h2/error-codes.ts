/** HTTP/2 error codes (RFC 9113 §7). */
export const H2_NO_ERROR = 0x0;
export const H2_PROTOCOL_ERROR = 0x1;
export const H2_INTERNAL_ERROR = 0x2;
export const H2_FLOW_CONTROL_ERROR = 0x3;
export const H2_STREAM_CLOSED = 0x5;
export const H2_FRAME_SIZE_ERROR = 0x6;
export const H2_REFUSED_STREAM = 0x7;
export const H2_CANCEL = 0x8;
export const H2_COMPRESSION_ERROR = 0x9;
export const H2_ENHANCE_YOUR_CALM = 0xb;
