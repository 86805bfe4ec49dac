/**
 * The RowFilter language of the Data API: its shape (ast.ts), compiled once,
 * then applied per row; the one way into this folder from outside it. See
 * validate.ts for the rules, nodes.ts for the evaluation contract, and
 * re2-addon.ts for how RE2 is loaded (and its missing addon reported).
 */
export type { ByteBound, RowFilter } from './ast.js';
export { checkRe2Addon } from './re2-addon.js';
export { type CompiledFilter, type CompileOptions, compileFilter } from './compile.js';
