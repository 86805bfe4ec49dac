import type { AdviceJson, Finding, TableJson } from '../api.js';
import { advicePath, instancePath } from '../api.js';
import {
  evidenceRows,
  groupBySeverity,
  adviceSummary,
  RULE_TITLES,
  SEVERITY_LABELS,
  textParts,
  type TextPart,
} from '../advisor/finding-text.js';
import { Section } from '../components/status.js';
import { useJson } from '../components/use-json.js';
import { formatTime } from '../format.js';
import { keyText } from '../keys.js';
import { formatRoute } from '../routes.js';

interface AdviceProps {
  readonly project: string;
  readonly instance: string;
  /** Advice for this table only; undefined: every table of the instance. */
  readonly table?: string | undefined;
}

/**
 * The schema advisor: its findings grouped by severity (danger first), each
 * with its rule, table, message, evidence, the suggested redesign in the
 * user's own keys and, when the rule has one, a link to the what-if
 * simulation of the fix. With no findings it says what it examined.
 */
export function AdvicePage(props: AdviceProps) {
  const advice = useJson<AdviceJson>(advicePath(props.project, props.instance, props.table));
  const tables = useJson<{ tables: readonly TableJson[] }>(`${instancePath(props.project, props.instance)}/tables`);
  const ref = { project: props.project, instance: props.instance };
  // The filter offers the instance's tables; while they load (or if they fail), the ones the advice names.
  const choices = [
    ...new Set([
      ...(tables.data?.tables.map((t) => t.tableId) ?? advice.data?.tables ?? []),
      ...(props.table === undefined ? [] : [props.table]),
    ]),
  ].sort();
  return (
    <div class="advice-page">
      <h1>
        Schema advisor{props.table === undefined ? '' : `: ${props.table}`}
        {props.table !== undefined && (
          <a class="action" href={formatRoute({ page: 'table', ...ref, table: props.table })}>
            table details
          </a>
        )}
      </h1>
      <p class="muted intro">
        The advisor reads the stored row keys (sampled) and the recorded traffic, names the anti-patterns of Bigtable's schema design guide
        it sees, shows the evidence, and suggests the redesign in your own keys.
      </p>
      <div class="controls">
        <label>
          Table{' '}
          <select
            id="advice-table"
            value={props.table ?? ''}
            onChange={(e) => {
              const t = (e.currentTarget as HTMLSelectElement).value;
              location.hash = formatRoute({ page: 'advice', ...ref, table: t === '' ? undefined : t });
            }}
          >
            <option value="">all tables</option>
            {choices.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Section state={advice}>{(a) => <Findings advice={a} project={props.project} instance={props.instance} />}</Section>
    </div>
  );
}

function Findings(props: { readonly advice: AdviceJson; readonly project: string; readonly instance: string }) {
  const a = props.advice;
  const groups = groupBySeverity(a.findings);
  return (
    <div>
      <p id="advice-summary" class={`summary${a.findings.length === 0 ? ' clean' : ''}`}>
        {a.findings.length === 0 && '✓ '}
        {adviceSummary(a)}
        {a.findings.length === 0 && a.tables.length > 0 && (
          <span class="muted">
            {' '}
            ({a.tables.slice(0, 20).join(', ')}
            {a.tables.length > 20 ? ', …' : ''})
          </span>
        )}
      </p>
      <p class="muted">
        Traffic recorded {formatTime(a.window.from)} – {formatTime(a.window.to)}; advice made {formatTime(a.generatedAt)}.
      </p>
      {groups.map((g) => (
        <section key={g.severity} class={`severity-group ${g.severity}`} data-severity={g.severity}>
          <h2>
            {SEVERITY_LABELS[g.severity]} <span class={`count badge ${g.severity}`}>{g.findings.length}</span>
          </h2>
          <ul class="findings">
            {g.findings.map((f, i) => (
              <FindingCard key={`${f.rule}:${f.table}:${i}`} finding={f} project={props.project} instance={props.instance} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function FindingCard(props: { readonly finding: Finding; readonly project: string; readonly instance: string }) {
  const f = props.finding;
  const ref = { project: props.project, instance: props.instance, table: f.table };
  const rows = evidenceRows(f.evidence);
  return (
    <li class={`finding ${f.severity}`} data-rule={f.rule} data-table={f.table}>
      <div class="title">
        <span class={`badge ${f.severity}`}>{f.severity}</span> <code class="rule">{f.rule}</code>
        {RULE_TITLES[f.rule] !== undefined && <span class="rule-title"> {RULE_TITLES[f.rule]}</span>}
        <span class="sep"> · </span>
        <span class="muted">table </span>
        <a class="table-link" href={formatRoute({ page: 'table', ...ref })}>
          {f.table}
        </a>
        {f.keyRange !== undefined && (
          <>
            <span class="sep"> · </span>
            <span class="muted">keys </span>
            <span class="key range">
              {keyText(f.keyRange.startText)} … {keyText(f.keyRange.endText, true)}
            </span>
          </>
        )}
      </div>
      <p class="message">
        <Parts parts={textParts(f.message)} />
      </p>
      {rows.length > 0 && (
        <dl class="evidence">
          {rows.map((r) => [
            <dt key={`dt:${r.label}`}>{r.label}</dt>,
            <dd key={`dd:${r.label}`}>
              {r.kind === 'keys'
                ? r.values.map((v, i) => (
                    <code key={i} class="key">
                      {v}
                    </code>
                  ))
                : r.values.join(', ')}
            </dd>,
          ])}
        </dl>
      )}
      <p class="suggestion">
        <span class="label">Suggestion</span> <Parts parts={textParts(f.suggestion)} />
      </p>
      {f.simulate !== undefined && (
        <a class="what-if" href={formatRoute({ page: 'simulate', ...ref, what: { transform: f.simulate } })}>
          What if? Simulate <code>{f.simulate}</code> →
        </a>
      )}
    </li>
  );
}

/** Prose, keys in monospace and arrows, as textParts split them. */
function Parts(props: { readonly parts: readonly TextPart[] }) {
  return (
    <>
      {props.parts.map((p, i) =>
        p.key === true ? (
          <code key={i} class="key">
            {p.text}
          </code>
        ) : p.arrow === true ? (
          <span key={i} class="arrow">
            {' → '}
          </span>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}
