import { useEffect, useRef, useState } from 'preact/hooks';
import { type SqlResponseJson, type TableJson, instancePath, postJson, sqlPath } from '../api.js';
import { useJson } from '../components/use-json.js';
import { formatRoute } from '../routes.js';
import { errorExcerpt, offsetOf, parseErrorPosition } from '../sql/error-position.js';
import { type Example, examplesFor, firstKeyQuery, prefixParam, queryParamNames } from '../sql/examples.js';
import { type ParamRow, paramsOf } from '../sql/param-rows.js';
import { ParamsEditor } from '../sql/params-editor.js';
import { ResultTable } from '../sql/result-table.js';
import { SqlError } from '../sql/sql-error.js';

type Outcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'running' }
  | { readonly kind: 'done'; readonly run: number; readonly answer: SqlResponseJson; readonly clientMillis: number }
  | { readonly kind: 'failed'; readonly run: number; readonly message: string; readonly query: string };

/**
 * The GoogleSQL query box of an instance: the query (Ctrl/Cmd+Enter runs it), its parameters, example queries
 * from the instance's tables, and the answer of POST .../sql (result-table) or its error at its position in
 * the query. A run puts the query in the page's address (replacing it), so that a reload or a shared link
 * brings it back; it does not run until asked.
 */
export function SqlPage(props: { readonly project: string; readonly instance: string; readonly query?: string | undefined }) {
  const { project, instance } = props;
  const tables = useJson<{ tables: readonly TableJson[] }>(`${instancePath(project, instance)}/tables`);
  const [query, setQuery] = useState(props.query ?? '');
  const [rows, setRows] = useState<ParamRow[]>([]);
  const [tried, setTried] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'none' });
  const editor = useRef<HTMLTextAreaElement>(null);
  const nextId = useRef(1);
  const inFlight = useRef<AbortController | undefined>(undefined);
  // A link to a query (the table page's, the back button) replaces the text.
  useEffect(() => {
    if (props.query !== undefined) setQuery(props.query);
  }, [props.query]);
  useEffect(() => () => inFlight.current?.abort(), []);

  const { params, errors } = paramsOf(rows);
  const missing = queryParamNames(query).filter((name) => !rows.some((r) => r.name.trim().replace(/^@/, '') === name));
  const newRow = (change: Partial<ParamRow>): ParamRow => ({
    id: nextId.current++,
    name: '',
    type: 'STRING',
    value: '',
    bytesForm: 'text',
    isNull: false,
    ...change,
  });

  const run = async () => {
    setTried(true);
    if (query.trim() === '' || errors.size > 0) return;
    inFlight.current?.abort();
    const abort = new AbortController();
    inFlight.current = abort;
    history.replaceState(null, '', formatRoute({ page: 'sql', project, instance, query }));
    setOutcome({ kind: 'running' });
    const began = performance.now();
    const ran = query;
    try {
      const answer = await postJson<SqlResponseJson>(
        sqlPath(project, instance),
        Object.keys(params).length === 0 ? { query } : { query, params },
        abort.signal,
      );
      setOutcome({ kind: 'done', run: began, answer, clientMillis: Math.round((performance.now() - began) * 10) / 10 });
    } catch (e) {
      if (abort.signal.aborted) return;
      setOutcome({ kind: 'failed', run: began, message: e instanceof Error ? e.message : String(e), query: ran });
    }
  };

  // An error at a position puts the editor's cursor there, the token selected.
  useEffect(() => {
    if (outcome.kind !== 'failed' || outcome.query !== query || editor.current === null) return;
    const pos = parseErrorPosition(outcome.message);
    if (pos === undefined) return;
    const from = offsetOf(query, pos.line, pos.column);
    const token = errorExcerpt(query, pos.line, pos.column)?.token ?? '';
    editor.current.focus();
    editor.current.setSelectionRange(from, from + token.length);
  }, [outcome]); // only when a run fails, not as the text changes

  const choose = async (example: Example) => {
    let exampleParams = example.params ?? [];
    if (example.needsPrefix === true) {
      // The table's first key gives a prefix that matches something.
      const first = await postJson<SqlResponseJson>(sqlPath(project, instance), { query: firstKeyQuery(example.table) }).catch(
        () => undefined,
      );
      const key = first?.rows[0]?.[0] as { base64?: string } | null | undefined;
      exampleParams = [prefixParam(key?.base64)];
    }
    setQuery(example.query);
    setRows(exampleParams.map((p) => newRow({ name: p.name, type: p.type, value: p.value, bytesForm: p.bytesForm ?? 'text' })));
    setTried(false);
    editor.current?.focus();
  };

  const examples = tables.data === undefined ? [] : examplesFor(tables.data.tables);
  return (
    <div class="sql-page">
      <h1>
        SQL: {instance} <span class="muted">in {project}</span>
        <a class="action" href={formatRoute({ page: 'instance', project, instance })}>
          tables and nodes
        </a>
      </h1>
      <p class="muted intro">
        GoogleSQL for Bigtable, as the clients' executeQuery runs it: a table reads as <code>_key</code> (BYTES) and one{' '}
        <code>MAP&lt;BYTES, BYTES&gt;</code> per column family (<code>cf['q']</code> is a cell's latest value); conditions on{' '}
        <code>_key</code> read only the rows they name.
      </p>
      <div class="sql-layout">
        <form
          class="sql-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run();
          }}
        >
          <textarea
            id="sql-query"
            ref={editor}
            class="sql-editor"
            rows={Math.min(16, Math.max(5, query.split('\n').length + 1))}
            value={query}
            placeholder={"SELECT _key, cf['q'] AS q FROM my_table WHERE _key = @key LIMIT 10"}
            spellcheck={false}
            aria-label="query"
            onInput={(e) => setQuery((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void run();
              }
            }}
          />
          <ParamsEditor
            rows={rows}
            errors={tried ? errors : new Map()}
            missing={missing}
            onChange={setRows}
            onAdd={(name) => setRows([...rows, newRow({ name })])}
          />
          <div class="sql-actions">
            <button id="sql-run" type="submit" disabled={query.trim() === ''}>
              Run
            </button>
            <span class="muted"> Ctrl+Enter (⌘+Enter)</span>
            {outcome.kind === 'running' && (
              <>
                <span class="muted"> Running… </span>
                <button
                  type="button"
                  id="sql-cancel"
                  onClick={() => {
                    inFlight.current?.abort();
                    setOutcome({ kind: 'none' });
                  }}
                >
                  Cancel
                </button>
              </>
            )}
            {tried && errors.size > 0 && <span class="error"> Fix the parameters marked below to run.</span>}
          </div>
        </form>
        <aside id="sql-examples" class="sql-examples">
          <h2>Examples</h2>
          {tables.error !== undefined && <p class="error">{tables.error.message}</p>}
          {tables.data !== undefined && examples.length === 0 && <p class="muted">No tables yet.</p>}
          {groupByTable(examples).map(([table, list]) => (
            <div key={table}>
              <h3>{table}</h3>
              <ul>
                {list.map((x) => (
                  <li key={x.label}>
                    <button
                      type="button"
                      class="example link"
                      data-table={x.table}
                      data-label={x.label}
                      title={x.query}
                      onClick={() => void choose(x)}
                    >
                      {x.label}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </aside>
      </div>
      {outcome.kind === 'failed' && <SqlError key={outcome.run} message={outcome.message} query={outcome.query} />}
      {outcome.kind === 'done' && <ResultTable key={outcome.run} answer={outcome.answer} clientMillis={outcome.clientMillis} />}
    </div>
  );
}

function groupByTable(examples: readonly Example[]): [string, Example[]][] {
  const groups = new Map<string, Example[]>();
  for (const x of examples) groups.set(x.table, [...(groups.get(x.table) ?? []), x]);
  return [...groups];
}
