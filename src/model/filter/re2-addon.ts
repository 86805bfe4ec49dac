import { createRequire } from 'node:module';
import type RE2Module from 're2';

/**
 * re2, RE2's Node binding: a native addon that re2's install script
 * downloads or compiles. npm 12 runs a dependency's install script only when
 * allowed, so `npm install -g tabletopdb` without `--allow-scripts=re2`
 * installs re2 without its addon; loading it then fails with "Cannot find
 * module './build/Release/re2.node'", which says nothing of the remedy.
 * Here it says it (README: Install).
 *
 * The addon is loaded on the first regex (it costs a start 5-10 ms and
 * 2-4 MiB of memory, and most servers never see a regex); whether it was
 * built is checked at start, by resolving its file as a module (nothing is
 * loaded), so that a broken install is reported before a server runs rather
 * than on some later call. The model does no I/O of its own: only Node's
 * module loader looks at the files.
 */

/** The message for an re2 whose addon was never built. */
export const RE2_NOT_BUILT =
  "tabletop: re2's native addon is missing because its install script did not run (npm 12 runs a dependency's install script only when allowed). " +
  'Install again with `npm install -g tabletopdb --allow-scripts=re2` (or `npx --allow-scripts=re2 tabletopdb`); ' +
  'in a project, add "allowScripts": { "re2": true } to package.json (or run `npm approve-scripts re2`), then `npm rebuild re2`.';

/** A compiled RE2 pattern. */
export type RE2 = RE2Module;

const require = createRequire(import.meta.url);
let loaded: typeof RE2Module | undefined;

/** The RE2 class, loaded on first use. */
export function loadRe2(): typeof RE2Module {
  if (loaded !== undefined) return loaded;
  try {
    loaded = require('re2') as typeof RE2Module;
    return loaded;
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code === 'MODULE_NOT_FOUND' && typeof err.message === 'string' && err.message.includes('re2.node')) {
      throw new Error(RE2_NOT_BUILT, { cause: e });
    }
    throw e;
  }
}

/** Throws RE2_NOT_BUILT when re2's addon file is absent (the module loader resolves it; nothing is loaded). */
export function checkRe2Addon(): void {
  if (loaded !== undefined) return;
  require.resolve('re2'); // re2 itself missing: the loader's own error
  try {
    require.resolve('re2/build/Release/re2.node');
  } catch {
    throw new Error(RE2_NOT_BUILT);
  }
}
