import { createRequire } from 'node:module';
import type RE2Module from 're2';

/**
 * re2, RE2's Node binding: a native addon that re2's install script
 * downloads or compiles. npm 12 runs a dependency's install script only when
 * allowed, so `npm install -g tabletopdb` without `--allow-scripts=re2`
 * installs re2 without its addon; loading it then fails with "Cannot find
 * module './build/Release/re2.node'", which says nothing of the remedy.
 * This load says it (README: Install).
 */

/** The message for an re2 whose addon was never built. */
export const RE2_NOT_BUILT =
  "tabletop: re2's native addon is missing because its install script did not run (npm 12 runs a dependency's install script only when allowed). " +
  'Install again with `npm install -g tabletopdb --allow-scripts=re2` (or `npx --allow-scripts=re2 tabletopdb`); ' +
  'in a project, add "allowScripts": { "re2": true } to package.json (or run `npm approve-scripts re2`), then `npm rebuild re2`.';

/** The RE2 class (declared after RE2_NOT_BUILT, which loading may need). */
export const RE2: typeof RE2Module = loadRe2();
/** A compiled RE2 pattern. */
export type RE2 = RE2Module;

function loadRe2(): typeof RE2Module {
  try {
    return createRequire(import.meta.url)('re2') as typeof RE2Module;
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code === 'MODULE_NOT_FOUND' && typeof err.message === 'string' && err.message.includes('re2.node')) {
      throw new Error(RE2_NOT_BUILT, { cause: e });
    }
    throw e;
  }
}
