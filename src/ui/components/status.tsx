import type { ComponentChildren } from 'preact';
import type { Loaded } from './use-json.js';

/** Loading and error states of a fetched section; renders `children(data)` once loaded. */
export function Section<T>(props: {
  readonly title?: string;
  readonly state: Loaded<T>;
  readonly children: (data: T) => ComponentChildren;
}) {
  const { state } = props;
  return (
    <section>
      {props.title !== undefined && <h2>{props.title}</h2>}
      {state.loading && <p class="muted">Loading…</p>}
      {state.error !== undefined && <p class="error">{state.error.message}</p>}
      {state.data !== undefined && props.children(state.data)}
    </section>
  );
}
