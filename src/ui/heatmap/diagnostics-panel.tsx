import type { DiagnosticJson } from '../../insight/api-types.js';

const LABELS: Record<string, string> = {
  high_read_pressure: 'High read pressure',
  high_write_pressure: 'High write pressure',
  large_rows: 'Large rows',
  no_data_scanned: 'No data scanned',
  key_space_not_to_scale: 'Key space not to scale',
  values_approximate: 'Values per row are approximate',
  sequential_keys: 'Sequential keys (diagonal)',
  sudden_onset: 'Sudden onset',
  periodic: 'Periodic activity',
  scan_inefficiency: 'Scans read far more than they return',
};

/** The diagnostics beside the heatmap; clicking one outlines its key range and window. */
export function DiagnosticsPanel(props: {
  readonly diagnostics: readonly DiagnosticJson[] | undefined;
  readonly error?: string | undefined;
  readonly selected: number | undefined;
  readonly onSelect: (i: number | undefined) => void;
  /** The schema advisor's page for this table: each diagnostic links to it. */
  readonly adviceHref?: string | undefined;
}) {
  return (
    <aside class="diagnostics">
      <h2>Diagnostics</h2>
      {props.error !== undefined && <p class="error">{props.error}</p>}
      {props.diagnostics !== undefined && props.diagnostics.length === 0 && <p class="muted">Nothing to report in this window.</p>}
      <ul>
        {(props.diagnostics ?? []).map((d, i) => (
          <li
            key={`${d.kind}:${i}`}
            class={`diagnostic ${d.severity}${props.selected === i ? ' selected' : ''}`}
            data-kind={d.kind}
            onClick={() => props.onSelect(props.selected === i ? undefined : i)}
          >
            <div class="title">
              <span class={`badge ${d.severity}`}>{d.severity}</span> {LABELS[d.kind] ?? d.kind}
            </div>
            <p>{d.message}</p>
            {d.advice !== undefined && <p class="advice">{d.advice}</p>}
            {props.adviceHref !== undefined && (
              <a class="advice-link" href={props.adviceHref} onClick={(e) => e.stopPropagation()}>
                Schema advice for this table →
              </a>
            )}
            {props.selected === i && (
              <pre class="evidence">
                {Object.entries(d.evidence)
                  .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
                  .join('\n')}
              </pre>
            )}
          </li>
        ))}
      </ul>
    </aside>
  );
}
