import type { DiagnosticJson, DiagnosticKind, Severity } from '../api-types.js';
import type { DiagnosticContext, DiagnosticRule } from './context.js';
import { keySpaceNotToScale } from './key-space-not-to-scale.js';
import { largeRows } from './large-rows.js';
import { noDataScanned } from './no-data-scanned.js';
import { periodic } from './periodic.js';
import { highReadPressure, highWritePressure } from './pressure.js';
import { scanInefficiency } from './scan-inefficiency.js';
import { sequentialKeys } from './sequential-keys.js';
import { suddenOnset } from './sudden-onset.js';
import { unpaddedNumbers } from './unpadded-numbers.js';
import { unreversedDomains } from './unreversed-domains.js';
import { valuesApproximate } from './values-approximate.js';

export { type DiagnosticContext, diagnosticContext } from './context.js';
export { DEFAULT_THRESHOLDS, type DiagnosticThresholds } from './thresholds.js';

/** Every diagnostic kind's rule. */
export const RULES: Readonly<Record<DiagnosticKind, DiagnosticRule>> = {
  high_read_pressure: highReadPressure,
  high_write_pressure: highWritePressure,
  large_rows: largeRows,
  no_data_scanned: noDataScanned,
  key_space_not_to_scale: keySpaceNotToScale,
  values_approximate: valuesApproximate,
  sequential_keys: sequentialKeys,
  sudden_onset: suddenOnset,
  periodic,
  scan_inefficiency: scanInefficiency,
  unpadded_numbers: unpaddedNumbers,
  unreversed_domains: unreversedDomains,
};

const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { danger: 0, warning: 1, info: 2 };

/** All diagnostics of the context, the most severe first (stable within a severity: the order of RULES). */
export function runDiagnostics(ctx: DiagnosticContext): DiagnosticJson[] {
  const found = Object.values(RULES).flatMap((rule) => rule(ctx));
  return found.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}
