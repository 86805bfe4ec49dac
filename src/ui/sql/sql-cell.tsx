import type { SqlType } from '../../sql/types.js';
import { type BytesJson, type BytesMode, compactText, cutText, scalarText, showBytes } from './show-value.js';

/** Characters of a value shown in a cell before it is cut (the whole value is its tooltip). */
const MAX_TEXT = 300;
/** Entries of a MAP shown in a cell. */
const MAX_ENTRIES = 12;

/**
 * One result value, by its column's type: NULL set apart from any text, BYTES as text when printable
 * (else hex or base64, by the page's toggle), MAP as key → value lines, ARRAY and STRUCT compact.
 */
export function SqlCell(props: { readonly value: unknown; readonly type: SqlType | undefined; readonly bytes: BytesMode }) {
  const { value: v, type: t, bytes } = props;
  if (v === null) return <span class="null">NULL</span>;
  if (t === undefined) return <Text text={JSON.stringify(v)} class="compact" />;
  switch (t.kind) {
    case 'BYTES': {
      const b = showBytes(v as BytesJson, bytes);
      const shown = cutText(b.text, MAX_TEXT);
      return (
        <span class={b.encoded ? 'bytes encoded' : 'bytes'} title={bytesTitle(v as BytesJson, shown.cut ? b.text : undefined)}>
          {b.text === '' ? <span class="empty">(empty)</span> : shown.text}
        </span>
      );
    }
    case 'STRING':
      return (v as string) === '' ? <span class="empty">(empty)</span> : <Text text={v as string} />;
    case 'MAP': {
      const entries = v as [unknown, unknown][];
      if (entries.length === 0) return <span class="empty">(empty map)</span>;
      return (
        <ul class="map">
          {entries.slice(0, MAX_ENTRIES).map(([k, e], i) => (
            <li key={i}>
              <span class="map-key">
                <SqlCell value={k} type={t.key} bytes={bytes} />
              </span>
              <span class="arrow">→</span>
              <SqlCell value={e} type={t.value} bytes={bytes} />
            </li>
          ))}
          {entries.length > MAX_ENTRIES && <li class="muted">… {entries.length - MAX_ENTRIES} more</li>}
        </ul>
      );
    }
    case 'ARRAY':
    case 'STRUCT':
      return <Text text={compactText(v, t, bytes)} class="compact" />;
    default:
      return <Text text={scalarText(v)} />;
  }
}

function Text(props: { readonly text: string; readonly class?: string }) {
  const shown = cutText(props.text, MAX_TEXT);
  return (
    <span class={props.class} title={shown.cut ? props.text : undefined}>
      {shown.text}
    </span>
  );
}

function bytesTitle(b: BytesJson, whole: string | undefined): string {
  const forms = `hex ${cutText(showBytes(b, 'hex').text, 1000).text}\nbase64 ${cutText(b.base64, 1000).text}`;
  return whole === undefined ? forms : `${whole}\n${forms}`;
}

/** Columns of these types are right-aligned. */
export function isNumeric(t: SqlType | undefined): boolean {
  return t?.kind === 'INT64' || t?.kind === 'FLOAT64' || t?.kind === 'FLOAT32';
}
