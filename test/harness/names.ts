let counter = 0;
const RUN = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/**
 * A table id unique within this test process and very likely across
 * processes sharing a server: `${prefix}-${run}-${n}`, at most 50 characters,
 * matching [_a-zA-Z0-9][-_.a-zA-Z0-9]*.
 */
export function uniqueTableId(prefix = 't'): string {
  counter++;
  const clean = prefix.replace(/[^-_.a-zA-Z0-9]/g, '_').replace(/^[-.]/, '_');
  const id = `${clean.slice(0, 30)}-${RUN}-${counter.toString(36)}`;
  if (id.length > 50) throw new Error(`table id too long: ${id}`);
  return id;
}
