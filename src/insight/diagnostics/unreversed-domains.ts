import { printable } from '../../model/bytes.js';
import { startsWithHost } from '../key-shape.js';
import { ADVICE } from '../advice.js';
import { type DiagnosticRule, diagnostic, percent, wholeTable, windowRange } from './context.js';
import { sampleKeys } from './key-samples.js';

/** Share of the sampled keys that must look like host names. */
const MIN_SHARE = 0.5;

/** Unreversed domain names: most keys begin with `www.` or a host name written the usual way round. */
export const unreversedDomains: DiagnosticRule = (ctx) => {
  const keys = sampleKeys(ctx);
  const hosts = keys.filter((k) => startsWithHost(k));
  if (keys.length === 0 || hosts.length < MIN_SHARE * keys.length) return [];
  const example = hosts.slice(0, 3).map(printable);
  const message =
    `Unreversed domain names: ${percent(hosts.length / keys.length)} of the ${keys.length} keys sampled begin with a ` +
    `host name written the usual way round (${example.map((k) => `"${k}"`).join(', ')}), so a domain's rows are ` +
    `scattered and common prefixes such as "www." crowd the key space.`;
  return [
    diagnostic(
      'unreversed_domains',
      'info',
      message,
      wholeTable(),
      windowRange(ctx),
      {
        share: Math.round((100 * hosts.length) / keys.length) / 100,
        keysSampled: keys.length,
        examples: example,
      },
      ADVICE.unreversed_domains,
    ),
  ];
};
