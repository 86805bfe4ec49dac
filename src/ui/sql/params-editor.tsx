import { PARAM_TYPES, type ParamRow, placeholderOf } from './param-rows.js';

/**
 * The query's parameters: a row each (@name, type, value; BYTES written as text or base64; or NULL), the
 * problems of each row once a run was tried, and a button for each @name the query uses but no row gives.
 */
export function ParamsEditor(props: {
  readonly rows: readonly ParamRow[];
  readonly errors: ReadonlyMap<number, string>;
  /** @names the query uses that no row gives. */
  readonly missing: readonly string[];
  readonly onChange: (rows: ParamRow[]) => void;
  readonly onAdd: (name: string) => void;
}) {
  const { rows } = props;
  const update = (id: number, change: Partial<ParamRow>) => props.onChange(rows.map((r) => (r.id === id ? { ...r, ...change } : r)));
  const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
  return (
    <fieldset id="sql-params" class="sql-params">
      <legend>Parameters</legend>
      {rows.map((r) => (
        <div key={r.id} class="param-row" data-name={r.name}>
          <label class="param-name">
            @
            <input
              class="key"
              aria-label="name"
              value={r.name}
              placeholder="name"
              spellcheck={false}
              onInput={(e) => update(r.id, { name: value(e) })}
            />
          </label>
          <select class="param-type" aria-label="type" value={r.type} onChange={(e) => update(r.id, { type: value(e) })}>
            {PARAM_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          {r.type.includes('BYTES') && (
            <select
              class="param-bytes-form"
              aria-label="written as"
              value={r.bytesForm}
              onChange={(e) => update(r.id, { bytesForm: value(e) as ParamRow['bytesForm'] })}
            >
              <option value="text">as text</option>
              <option value="base64">as base64</option>
            </select>
          )}
          <input
            class="param-value key"
            aria-label="value"
            value={r.value}
            disabled={r.isNull}
            placeholder={placeholderOf(r)}
            spellcheck={false}
            onInput={(e) => update(r.id, { value: value(e) })}
          />
          <label class="param-null">
            <input
              type="checkbox"
              checked={r.isNull}
              onChange={(e) => update(r.id, { isNull: (e.currentTarget as HTMLInputElement).checked })}
            />{' '}
            NULL
          </label>
          <button
            type="button"
            class="param-remove"
            title="remove this parameter"
            onClick={() => props.onChange(rows.filter((x) => x.id !== r.id))}
          >
            ×
          </button>
          {props.errors.has(r.id) && <span class="error param-error">{props.errors.get(r.id)}</span>}
        </div>
      ))}
      <div class="param-add">
        <button type="button" id="param-add" onClick={() => props.onAdd('')}>
          + parameter
        </button>
        {props.missing.map((name) => (
          <button
            type="button"
            key={name}
            class="param-suggest"
            data-name={name}
            title="the query uses it"
            onClick={() => props.onAdd(name)}
          >
            + @{name}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
