import { useEffect, useState } from 'preact/hooks';
import { ApiError, simulatePath, type SimulationJson } from '../api.js';
import { NodeChart, TabletBars } from '../advisor/load-chart.js';
import { sharedCeiling, tabletCeiling } from '../advisor/load-bars.js';
import { firstSentence } from '../advisor/finding-text.js';
import { TRANSFORM_HELP, TRANSFORM_INTRO } from '../advisor/transform-help.js';
import { useJson } from '../components/use-json.js';
import { formatNumber } from '../format.js';
import { formatRoute, type TableRef, type WhatIf } from '../routes.js';

/** Busiest tablets shown per side. */
const TABLETS_SHOWN = 8;

/**
 * What-if: a key transform replayed on the table's sampled keys and recorded
 * traffic through the real split and balancing logic (the server does it);
 * the page draws each node's share of the ops before and after, side by
 * side on one scale, the busiest tablets, example keys before → after and
 * the verdict. A transform the server rejects (400) is explained under the input.
 */
export function SimulatePage(props: TableRef & { readonly what: WhatIf }) {
  const ref: TableRef = { project: props.project, instance: props.instance, table: props.table };
  const { what } = props;
  const sim = useJson<SimulationJson>(what.transform === '' ? undefined : simulatePath(ref, what));
  const [transform, setTransform] = useState(what.transform);
  const [nodes, setNodes] = useState(what.nodes === undefined ? '' : String(what.nodes));
  // A link or the back button changes the question: the inputs follow.
  useEffect(() => {
    setTransform(what.transform);
    setNodes(what.nodes === undefined ? '' : String(what.nodes));
  }, [what.transform, what.nodes]);
  const rejected = sim.error instanceof ApiError && sim.error.status === 400 ? sim.error.message : undefined;
  const submit = (e: Event) => {
    e.preventDefault();
    const n = Number(nodes);
    location.hash = formatRoute({
      page: 'simulate',
      ...ref,
      what: { transform: transform.trim(), nodes: nodes.trim() !== '' && Number.isInteger(n) && n > 0 ? n : undefined },
    });
  };
  return (
    <div class="simulate-page">
      <h1>
        What if: {props.table}
        <a class="action" href={formatRoute({ page: 'advice', project: ref.project, instance: ref.instance, table: ref.table })}>
          schema advice
        </a>
        <a class="action" href={formatRoute({ page: 'table', ...ref })}>
          table details
        </a>
      </h1>
      <p class="muted intro">
        Replays the table's sampled keys and recorded traffic under a key transformation, through the same tablet split and balancing logic
        the server runs, so that you see the fix spread the load before you migrate.
      </p>
      <form id="what-if" class="what-if-form" onSubmit={submit}>
        <label>
          Transform{' '}
          <input
            id="transform"
            class="key"
            size={36}
            value={transform}
            placeholder="salt:8@2,promote:2"
            spellcheck={false}
            onInput={(e) => setTransform((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <label>
          Nodes{' '}
          <input
            id="nodes"
            type="number"
            min={1}
            step={1}
            value={nodes}
            placeholder="cluster's"
            onInput={(e) => setNodes((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" disabled={transform.trim() === ''}>
          Simulate
        </button>
        {rejected !== undefined && (
          <pre id="transform-error" class="error">
            {rejected}
          </pre>
        )}
        <details class="grammar" open={what.transform === '' || rejected !== undefined}>
          <summary>Transform grammar</summary>
          <p class="muted">{TRANSFORM_INTRO}</p>
          <dl>
            {TRANSFORM_HELP.map((h) => [
              <dt key={`dt:${h.step}`}>
                <code>{h.step}</code>
              </dt>,
              <dd key={`dd:${h.step}`}>{h.does}</dd>,
            ])}
          </dl>
        </details>
      </form>
      {what.transform === '' && <p class="muted">Enter a transform to see the load before and after.</p>}
      {sim.loading && <p class="muted">Simulating…</p>}
      {sim.error !== undefined && rejected === undefined && <p class="error">{sim.error.message}</p>}
      {sim.data !== undefined && <Simulation sim={sim.data} />}
    </div>
  );
}

function Simulation(props: { readonly sim: SimulationJson }) {
  const s = props.sim;
  const nodeScale = sharedCeiling(s.before, s.after);
  const tabletScale = tabletCeiling(s.before, s.after);
  const better = s.after.maxNodeShare < s.before.maxNodeShare;
  const how = firstSentence(s.description.trim());
  return (
    <div class="simulation">
      <p id="verdict" class={`verdict ${better ? 'better' : 'not-better'}`}>
        {s.verdict}
      </p>
      <p class="description">
        <code>{s.transform}</code>: {how.first}{' '}
        <span class="muted">
          {formatNumber(s.keysSampled)} keys sampled, spread over {formatNumber(s.nodes)} {s.nodes === 1 ? 'node' : 'nodes'}.
        </span>
      </p>
      {how.rest !== '' && (
        <details class="how">
          <summary>How it was replayed</summary>
          <p class="muted">{how.rest}</p>
        </details>
      )}
      <h2>Share of ops per node</h2>
      <div class="side-by-side">
        <NodeChart title="Before" which="before" side={s.before} ceiling={nodeScale} />
        <NodeChart title="After" which="after" side={s.after} ceiling={nodeScale} />
      </div>
      <h2>Busiest tablets</h2>
      <div class="side-by-side">
        <figure>
          <figcaption>
            <strong>Before</strong> ({formatNumber(s.before.tablets.length)} tablets)
          </figcaption>
          <TabletBars side={s.before} which="before" ceiling={tabletScale} count={TABLETS_SHOWN} />
        </figure>
        <figure>
          <figcaption>
            <strong>After</strong> ({formatNumber(s.after.tablets.length)} tablets)
          </figcaption>
          <TabletBars side={s.after} which="after" ceiling={tabletScale} count={TABLETS_SHOWN} />
        </figure>
      </div>
      <h2>Example keys</h2>
      <table class="grid examples" id="examples">
        <thead>
          <tr>
            <th>Before</th>
            <th />
            <th>After</th>
          </tr>
        </thead>
        <tbody>
          {s.examples.map((x, i) => (
            <tr key={i}>
              <td class="key">{x.before}</td>
              <td class="arrow">→</td>
              <td class="key">{x.after}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
