import type { PFieldMask } from './proto-types.js';

/** Field mask paths in snake_case (clients send snake_case; camelCase is accepted too). */
export function maskPaths(mask: PFieldMask | null | undefined): string[] {
  const out: string[] = [];
  for (const p of mask?.paths ?? []) {
    for (const part of p.split(',')) {
      const t = part.trim();
      if (t !== '') out.push(t.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()));
    }
  }
  return out;
}
