import type { AuthorizedViewJson } from '../api.js';

/** A table's authorized views: the rows each covers (its prefixes) and the columns (per family: qualifiers, and prefixes as `p*`). */
export function AuthorizedViews(props: { readonly views: readonly AuthorizedViewJson[] }) {
  if (props.views.length === 0) return <p class="muted">No authorized views.</p>;
  return (
    <table class="grid" id="authorized-views">
      <thead>
        <tr>
          <th>View</th>
          <th>Rows</th>
          <th>Columns</th>
          <th>Protected</th>
        </tr>
      </thead>
      <tbody>
        {props.views.map((v) => (
          <tr key={v.id}>
            <td>{v.id}</td>
            <td class="key">{rowsText(v)}</td>
            <td class="key">{columnsText(v)}</td>
            <td>{v.deletionProtection ? 'yes' : 'no'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "all rows", "none", or the prefixes as `p*`. */
export function rowsText(v: AuthorizedViewJson): string {
  if (v.rowPrefixes.length === 0) return 'none';
  if (v.rowPrefixes.some((p) => p.printable === '')) return 'all rows';
  return v.rowPrefixes.map((p) => `${p.printable}*`).join(', ');
}

/** Per family: "cf: *" for the whole family, else its qualifiers and `prefix*`es; "none" without families. */
export function columnsText(v: AuthorizedViewJson): string {
  if (v.familySubsets.length === 0) return 'none';
  return v.familySubsets
    .map((f) => {
      if (f.qualifierPrefixes.some((p) => p.printable === '')) return `${f.family}: *`;
      const parts = [...f.qualifiers.map((q) => q.printable), ...f.qualifierPrefixes.map((p) => `${p.printable}*`)];
      return `${f.family}: ${parts.length === 0 ? 'none' : parts.join(', ')}`;
    })
    .join('; ');
}
