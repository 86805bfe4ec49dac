import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';

export interface Loaded<T> {
  readonly data?: T | undefined;
  readonly error?: Error | undefined;
  readonly loading: boolean;
}

/** GET a JSON path once per path (undefined: nothing to fetch); aborted when the path changes or the page goes. */
export function useJson<T>(path: string | undefined): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: path !== undefined });
  useEffect(() => {
    if (path === undefined) return undefined;
    const abort = new AbortController();
    setState({ loading: true });
    getJson<T>(path, abort.signal).then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => {
        if (!abort.signal.aborted) setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false });
      },
    );
    return () => abort.abort();
  }, [path]);
  return state;
}
