/**
 * The RowFilter language of the Data API: validate and compile once, then
 * apply per row. See ast.ts for the shape, validate.ts for the rules,
 * nodes.ts for the evaluation contract.
 */
export type { ByteBound, RowFilter, RowFilterKind } from './ast.js';
export { type CompiledFilter, type CompileOptions, compileFilter } from './compile.js';
export { encodedFilterSize } from './encoded-size.js';
