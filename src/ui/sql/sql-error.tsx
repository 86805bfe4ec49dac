import { errorExcerpt, parseErrorPosition } from './error-position.js';

/**
 * A failed query's message; when it names a position (`line L, column C: ...`), the query's line under it
 * with the token there marked and a caret below.
 */
export function SqlError(props: { readonly message: string; readonly query: string }) {
  const pos = parseErrorPosition(props.message);
  const excerpt = pos === undefined ? undefined : errorExcerpt(props.query, pos.line, pos.column);
  return (
    <div id="sql-error" class="sql-error" data-line={pos?.line} data-column={pos?.column}>
      <p class="error">
        {pos === undefined ? (
          props.message
        ) : (
          <>
            <strong class="position">
              line {pos.line}, column {pos.column}
            </strong>
            : {pos.message}
          </>
        )}
      </p>
      {excerpt !== undefined && (
        <pre class="error-context">
          <span class="line-no">{pos!.line} │ </span>
          {excerpt.before}
          <mark id="sql-error-token">{excerpt.token === '' ? ' ' : excerpt.token}</mark>
          {excerpt.after}
          {'\n'}
          <span class="line-no">{' '.repeat(String(pos!.line).length)} │ </span>
          {[...excerpt.before].map((c) => (c === '\t' ? '\t' : ' ')).join('')}
          <span class="caret">^</span>
        </pre>
      )}
    </div>
  );
}
