import { printable } from '../../../model/bytes.js';
import { reverseHost, splitKey, startsWithHost } from '../../key-shape.js';
import { type Rule, finding, percent, rewrite, round, samples, transform } from './context.js';

/**
 * Host names first in the key, written the usual way round (`www.example.com/a`):
 * the same test as the heatmap's unreversed_domains (key-shape.ts
 * startsWithHost), on `leadingShare` of the keys. A warning: one domain's
 * hosts (`www.`, `shop.`, `api.`) are scattered over the table, so a scan of
 * a domain is many scans, and `www.` crowds one range.
 */
export const unreversedDomain: Rule = (ctx) => {
  const { shape, t } = ctx;
  if (shape.keys.length < t.minKeys) return [];
  const hosts = shape.keys.filter(startsWithHost);
  const share = hosts.length / shape.keys.length;
  if (share < t.leadingShare) return [];
  const example = hosts[0]!;
  const [host = ''] = splitKey(example, shape.delimiter);
  const reversed = reverseHost(host) + example.slice(host.length);
  return [
    finding(
      ctx,
      'unreversed-domain',
      'warning',
      `Keys start with host names written the usual way round (${percent(share)} of the ${shape.keys.length} keys sampled, e.g. ` +
        `\`${printable(example)}\`). The most specific label comes first, so one domain's hosts (\`www.\`, \`shop.\`, \`api.\`) ` +
        `are scattered over the table: reading a domain takes a scan per host, and common labels like \`www.\` crowd one range.`,
      { keysSampled: shape.keys.length, share: round(share), threshold: t.leadingShare, examples: samples(hosts) },
      `Store host names reversed, by labels: ${rewrite(example, reversed)}; a domain and all its hosts are then one prefix (\`${printable(reverseHost(host).split('.').slice(0, 2).join('.'))}.\`).`,
      { simulate: transform(shape, 'reverse:1') },
    ),
  ];
};
